"""Evaluation of the library's text features against tests/data/retrieval_eval.yaml."""
