"""What the nodes reach the world with, in four parts that each know nothing of nodes or the graph:

- `http/`: the HTTP layer every live client uses (the call, pacing, keys and allowlist, cache, errors, reply parsing);
- `sources/`: the literature sources, one client per API (arXiv, Semantic Scholar, OpenAlex, Crossref, Brave,
  PubChem), and the citation-hop selection they share;
- `models/`: models that read text without a corpus: the packaged MiniLM encoder, the hosted embedders and rerankers
  (Voyage, Cohere) and the offline fallback for them;
- `index/`: the offline literature index: reading a corpus, the embedded index and its builds, the Qdrant index, and
  the offline reranker with its sentence store (it scores with the index's BM25 tokens and the index's sentences).

`live.py` builds the live backend's tools from `sources/` and `models/`. Dependencies point one way: index -> models,
sources and models -> http; nothing here imports live.py.
"""
