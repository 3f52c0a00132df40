"""Models that read text without a corpus: the packaged all-MiniLM-L6-v2 encoder (`encoder`), the hosted embedders and
rerankers over HTTP (`voyage`, `cohere_rerank`) and the time-bounded fallback from a hosted model to an offline one
(`fallback`). The weights of the packaged models are data in agent/models/, not code here."""
