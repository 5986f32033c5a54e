"""Measuring words-to-cases against the evaluation set (tests/data/retrieval_eval.yaml).

`dataset.load_items` reads the set, `search.evaluate_search` and `suggestions.evaluate_suggestions`
score an engine given as a plain function; `manage.py eval_retrieval` prints both on the database
in use. Nothing here tunes anything: it only measures.
"""
