"""Incident Library: public AI-infrastructure failure cases, and kubegap, the audit that cites them."""
