"""`make bench`: synthetic libraries in throwaway PostgreSQL databases, and the figures."""
