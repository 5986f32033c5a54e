"""The OpenAPI schema describes a check as the checks API returns it, in the list and alone."""

from __future__ import annotations

from django.test import Client

from incidents.audit.checks import ALL_CHECKS


def test_the_schema_gives_the_fields_a_check_is_returned_with(
    client: Client, seeded_library: None
) -> None:
    schema = client.get("/api/schema/", {"format": "json"}).json()
    components = schema["components"]["schemas"]
    detail = schema["paths"]["/api/checks/{check_id}/"]["get"]["responses"]["200"]
    assert detail["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/Check"}
    returned = client.get(f"/api/checks/{ALL_CHECKS[0].id}/").json()
    assert list(components["Check"]["properties"]) == list(returned)
    listed = client.get("/api/checks/").json()[0]
    assert list(components["CheckList"]["properties"]) == list(listed)
