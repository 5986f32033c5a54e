"""The suggestion engine's weights and limits, in one place.

Each is read as `weights.NAME` when the engine runs (never copied at import), so that
`manage.py eval_suggestions --set NAME=VALUE` can try another value; what each weighs is told in
incidents.suggest.engine. The like-cases prior's own weights are in incidents.suggest.like and
incidents.suggest.prior.
"""

from __future__ import annotations

# Tuned on the tune half of the evaluation set (`manage.py eval_suggestions --split tune
# --threshold T --set NAME=VALUE`), each change checked on its odd and even sentences apart, and
# on the fixture cases' own sentences against their tags: precision and recall are flat for
# thresholds from 0.5 to 0.8 (0.5 lets two weak pieces of evidence through, 0.45 + 0.45); a
# learned weight above 0.55, or one word of learned evidence, added wrong values faster than
# right ones, and so did learned words common in English (lexicon.LEARNED_MAX_ZIPF).
# Re-checked by 5-fold cross-validation on the 124 tune sentences (three shuffles, a grid of
# THRESHOLD 0.4-0.6, like.PRIOR_WEIGHT 0-0.9, LEARNED_WEIGHT 0-0.55, chosen by F1 on four folds):
# every fold chose THRESHOLD 0.5 and PRIOR_WEIGHT 0.7; LEARNED_WEIGHT made no difference.
THRESHOLD = 0.5
PHRASE_WEIGHT = 0.9
TYPO_FACTOR = 0.85
AMBIGUOUS_WEIGHT = 0.3
# ... and its weight where the text names a broader or narrower value of its family outright.
CONFIRMED_WEIGHT = 0.9
# An ambiguous word that ends another value's longer name or alias ("node" of "Kubernetes node")
# names that value where the text holds the name's other words ("k8s"); 0: off.
COMPOSED_NAMES = 1
# An organisation's ambiguous name ("imbue") counts fully beside an organisation named outright
# that either's description names ("voltage park"); 0: off.
PARTNERS_CONFIRM = 1
# ... and any value's ambiguous word where the text names outright a value whose name or alias
# its description uses ("throttled" beside "CPU", which CPU throttling's description names, and
# not beside "S3 throttled our requests"); 0: off.
DESCRIBED_CONFIRMS = 1
# A one-word phrase that is a common English word ("stalled", "checkpoints", "fabric") names
# something else as often as the value (fixture case text: 64% of one-word phrase matches were
# right against 80% of longer ones): alone it stays below the threshold, and a second piece of
# evidence (another term, a child, learned words) confirms it. Technical words ("segfault",
# "nxdomain", "xid") count as phrases.
EVERYDAY_PHRASE_WEIGHT = 0.45
# A component counted ("512 GPUs", "a 10k-GPU job") tells the scale, not what failed.
COUNTED_WEIGHT = 0.45
# A phrase read with a synonym of its predicate ("api server fell over" for "... went down").
VARIANT_FACTOR = 0.95
# An organisation written as the vendor of a component ("NVIDIA A100 GPUs").
VENDOR_WEIGHT = 0.45
# ... but in a keyword query only an organisation whose description calls it a maker or vendor
# ("The GPU maker"): any other is the operator of the part ("monzo linkerd outage"); 0: every
# organisation everywhere.
VENDORS_MAKE_PARTS = 1
LEARNED_WEIGHT = 0.55
LEARNED_SATURATION = 1.0
# Words a value's learned evidence needs, at least: one word is a topic, not a description.
LEARNED_MIN_WORDS = 2
# Learned words are shown among a value's words when they added at least this much.
LEARNED_SHOWN = 0.05
MAX_GAP = 2
# ... but a phrase of two words as written is found only with its words together: "step time"
# is not "a step at a time", "spare pool" not "spare nodes from the pool" (on every set
# measured, t1-t124, t125-t154, t155-t184 and the fixture cases' summaries, it dropped 2, 2, 2
# and 9 wrong values for 2, 0, 1 and 1 right ones).
PAIR_GAP = 0
# ... where an article between them counts toward no gap ("without a canary" for "no canary");
# 0: off.
ARTICLES_FREE = 1
# ... and so does an adverb of time or manner ("the job just stalls" for "job stalled",
# matching.FREE_ADVERBS); 0: off.
ADVERBS_FREE = 1
# A phrase read without its own preposition ("down for days" as "down ... days") is not found
# across another preposition ("down 1-2% over the day"); 0: off.
PREPOSITION_KEPT = 1
# A component's one-word name written as a past form of a verb ("switched off", "cached") names
# no part; 0: off.
PARTS_ARE_NOUNS = 1
# A name's or phrase's words never span the end of a clause ("we deleted the logs. the cluster
# ..." holds no "deleted the cluster"); 0: off.
CLAUSE_BOUND = 1
# Two words of a name or phrase written next to each other are no compound when a comma parts
# them ("broke the networking control plane, pods lost connectivity" holds no "control-plane
# pods"); 0: off.
COMMA_BOUND = 1
# A term a negator governs across determiners or "sign of" ("not a hardware problem", "no sign
# of memory pressure", "wasn't the network") or after "ruled out", "rather than", "instead of"
# is ruled out, as one right after a negation is (incidents.suggest.negation); 0: only one right
# after a negation.
RULED_OUT = 1
GAP_FACTOR = 0.9
# Characters of text the engine reads, at most (a pasted postmortem can be long).
MAX_CHARS = 20_000
