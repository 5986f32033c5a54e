"""Writing cases through the API: `POST /api/cases/` creates one, `PUT /api/cases/<slug>/`
replaces one, for a user with a token (`manage.py issue_token <user>`) and the permission to add
or change cases (incidents.add_case, incidents.change_case).

The body is a case in the case-file format (fixtures/README.md, as JSON), with its `slug` on a
POST; it goes through the same service as `load_cases` and the submission form. Answers: 201 or
200 with the case's card; 400 naming every field that is wrong (nothing is saved); 409 when the
slug is taken, or when the primary source is already another case's (a probable duplicate,
unless `?allow_duplicate=1`); 401 with `WWW-Authenticate: Token` without credentials; 403
without the permission.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiParameter
from drf_spectacular.utils import OpenApiResponse
from drf_spectacular.utils import extend_schema
from rest_framework import generics
from rest_framework import status
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response

from incidents.api.serializers import CaseDetailSerializer
from incidents.models import Case
from incidents.models import CaseKind
from incidents.models import Setting
from incidents.selectors.cases import case_detail
from incidents.selectors.parameters import unknown_parameters
from incidents.services.case_import import LibraryError
from incidents.services.case_import import ProbableDuplicate
from incidents.services.case_import import SlugTaken
from incidents.services.case_import import import_case
from incidents.services.case_import import problems_by_field

WRITE_PARAMS = ("allow_duplicate",)
ALLOW_DUPLICATE = OpenApiParameter(
    "allow_duplicate",
    bool,
    description="1: save even when the primary source is already another case's primary source",
)
CASE_BODY: dict[str, Any] = {
    "type": "object",
    "description": (
        "A case in the case-file format of fixtures/README.md (fixtures/schema/case.schema.json), "
        "as JSON; `slug` is required on POST. Facet values, remediations, action items and "
        "lessons are given by slug, with the case's own wording."
    ),
    "required": ["title", "summary", "organisations", "sources"],
    "properties": {
        "slug": {"type": "string", "pattern": "^[a-z0-9]+(?:-[a-z0-9]+)*$"},
        "title": {"type": "string", "maxLength": 250},
        "kind": {"type": "string", "enum": list(CaseKind.values)},
        "setting": {"type": "string", "enum": list(Setting.values)},
        "summary": {"type": "string"},
        "period": {"type": "object", "additionalProperties": True},
        "published": {"type": "string"},
        "sources": {"type": "array", "items": {"type": "object", "additionalProperties": True}},
        "organisations": {"type": "array", "items": {"type": "string"}},
    },
    "additionalProperties": True,
}
PROBLEMS = OpenApiResponse(
    response={
        "type": "object",
        "additionalProperties": {"type": "array", "items": {"type": "string"}},
    },
    description="Every field that is wrong (`sources[0].url`, ...), with what is wrong; nothing saved",
)
CONFLICT = OpenApiResponse(
    response={
        "type": "object",
        "properties": {
            "detail": {"type": "string"},
            "duplicate_of": {"type": "array", "items": {"type": "string"}},
        },
    },
    description="The slug is taken, or the primary source is already another case's",
)
NO_CREDENTIALS = OpenApiResponse(description="No credentials (WWW-Authenticate: Token)")
NO_PERMISSION = OpenApiResponse(description="The user may not add or change cases")


def _write_schema(own: dict[int, Any]) -> Any:
    """The schema of a case write: a case-file body, ?allow_duplicate, the write's `own`
    responses, and the refusals every write may answer."""
    return extend_schema(
        request={"application/json": CASE_BODY},
        parameters=[ALLOW_DUPLICATE],
        responses={
            **own,
            400: PROBLEMS,
            401: NO_CREDENTIALS,
            403: NO_PERMISSION,
            409: CONFLICT,
            429: OpenApiResponse(description="Too many requests (Retry-After)"),
        },
    )


def _allow_duplicate(request: Request) -> bool:
    raw = request.query_params.get("allow_duplicate", "")
    if raw not in ("", "0", "1", "true", "false"):
        raise ValidationError({"allow_duplicate": [f"must be 1 or 0, not {raw!r}"]})
    return raw in ("1", "true")


class CaseWrites(generics.GenericAPIView[Case]):
    """POST and PUT of CaseViewSet."""

    def _save(self, request: Request, slug: Any, *, replace: bool) -> Response:
        problems = unknown_parameters(request.query_params, WRITE_PARAMS)
        if problems:
            raise ValidationError(problems)
        body = request.data
        if not isinstance(body, dict):
            raise ValidationError(
                {"non_field_errors": ["The body must be a JSON object (a case)."]}
            )
        entry = {k: v for k, v in body.items() if k != "slug"}
        # A missing slug is one problem among the others of the body, all named in one answer.
        missing_slug = slug is None or slug == ""
        try:
            saved = import_case(
                slug="" if missing_slug else slug,
                entry=entry,
                replace=replace,
                allow_duplicate=_allow_duplicate(request),
            )
        except LibraryError as error:
            problems = problems_by_field(error)
            if missing_slug:
                problems["slug"] = ["is required: the case's slug (lower-case-words)."]
            raise ValidationError(problems) from error
        except SlugTaken as error:
            code = status.HTTP_409_CONFLICT if not replace else status.HTTP_404_NOT_FOUND
            return Response({"detail": str(error)}, status=code)
        except ProbableDuplicate as error:
            return Response(
                {
                    "detail": f"{error}; probably a duplicate. Send ?allow_duplicate=1 if it is not.",
                    "duplicate_of": error.slugs,
                },
                status=status.HTTP_409_CONFLICT,
            )
        data = CaseDetailSerializer(
            case_detail(slug=saved.case.slug), context=self.get_serializer_context()
        ).data
        return Response(
            data,
            status=status.HTTP_201_CREATED if saved.created else status.HTTP_200_OK,
            headers={"Location": data["api_url"]} if saved.created else None,
        )

    @_write_schema({201: CaseDetailSerializer})
    def create(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        """Add a case (the case-file format, with its slug)."""
        return self._save(
            request,
            request.data.get("slug") if isinstance(request.data, dict) else None,
            replace=False,
        )

    @_write_schema(
        {200: CaseDetailSerializer, 404: OpenApiResponse(description="No case with that slug")}
    )
    def update(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        """Replace a case with the one given (the case-file format)."""
        slug = kwargs["slug"]
        given = request.data.get("slug") if isinstance(request.data, dict) else None
        if given not in (None, slug):
            raise ValidationError(
                {"slug": [f"{given!r} differs from the case replaced, {slug!r}."]}
            )
        return self._save(request, slug, replace=True)
