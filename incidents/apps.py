from django.apps import AppConfig


class IncidentsConfig(AppConfig):
    name = "incidents"
    verbose_name = "Incident library"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from incidents.services.library_version import connect_signals

        connect_signals()
