# The image site/k8s/ names (incident-library:0.1.0): the library served by gunicorn, and kubegap.
#   docker build -t incident-library:0.1.0 .
# Stage 1 installs the dependencies into a virtualenv; stage 2 copies it and the app's files, with
# no compiler or pip cache, collects the static files at build time and runs as an unprivileged user.

FROM python:3.11-slim-bookworm AS build
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
RUN python -m venv /opt/venv
WORKDIR /src
COPY pyproject.toml README.md ./
COPY incidents ./incidents
RUN /opt/venv/bin/pip install .

FROM python:3.11-slim-bookworm AS runtime
ENV PATH=/opt/venv/bin:$PATH \
    PYTHONPATH=/app \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    DJANGO_SETTINGS_MODULE=incidents.config.settings \
    STATIC_ROOT=/app/staticfiles
RUN groupadd --gid 10001 app && useradd --uid 10001 --gid 10001 --no-create-home --shell /usr/sbin/nologin app
COPY --from=build /opt/venv /opt/venv
WORKDIR /app
COPY manage.py ./
COPY incidents ./incidents
COPY templates ./templates
COPY site ./site
COPY fixtures ./fixtures
# Hashed, compressed static files in the image: no collectstatic at start, a read-only root works.
RUN SECRET_KEY=collectstatic-at-build-time-only python manage.py collectstatic --no-input --verbosity 0
USER 10001:10001
EXPOSE 8000
CMD ["gunicorn", "--config", "python:incidents.config.gunicorn"]
