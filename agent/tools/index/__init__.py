"""The offline literature index: reading a corpus (`corpus_records`, `corpus_stream`), the embedded BM25 + MiniLM index
(`local_index`) with its packaged vectors, resumable encoding and refresh (`packaged_vectors`, `encode_checkpoint`,
`index_refresh`), the Qdrant index (`qdrant_index`, `qdrant_build`, `qdrant_edge`), and the offline reranker
(`offline_rerank`) with its sentence store's builds (`sentence_build`, `background_store`): the reranker scores with
the index's BM25 tokens and the sentences of the index's records, so it lives beside them."""
