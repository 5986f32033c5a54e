"""The library as a graph, in plain Python and networkx: no ORM and no URLs here.

- `links`: what the selected cases link to (ids only), the input of every view;
- `overview`: the most shared values, remediations and lessons (at most 60 nodes), their
  weighted projection and its tables;
- `focus`: one value, remediation, lesson or case and what the cases around it share;
- `layout`: a deterministic column layout the template draws as SVG.

The selector (incidents.selectors.graph) reads the links and the labels; the presenter
(incidents.presenters.graph_page) lays the picture out and links nodes to pages.
"""

from incidents.graph.kinds import NODE_KINDS
from incidents.graph.kinds import NODE_PLURALS
from incidents.graph.kinds import BadNodeRef
from incidents.graph.kinds import NodeKey
from incidents.graph.kinds import NodeRef
from incidents.graph.kinds import parse_node_ref
from incidents.graph.links import CaseLinks
from incidents.graph.links import ValueTree
from incidents.graph.picture import Picture
from incidents.graph.picture import PictureColumn
from incidents.graph.picture import PictureEdge
from incidents.graph.picture import PictureNode

__all__ = [
    "NODE_KINDS",
    "NODE_PLURALS",
    "BadNodeRef",
    "CaseLinks",
    "NodeKey",
    "NodeRef",
    "Picture",
    "PictureColumn",
    "PictureEdge",
    "PictureNode",
    "ValueTree",
    "parse_node_ref",
]
