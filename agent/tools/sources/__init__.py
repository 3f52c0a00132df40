"""The literature sources: one client per API (arXiv, Semantic Scholar, OpenAlex, Crossref, Brave, PubChem), each a
HostPolicy and its endpoints over agent.tools.http, and the citation-hop selection the citation-graph clients share."""
