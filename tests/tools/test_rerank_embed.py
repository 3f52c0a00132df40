"""Cohere Rerank v2 and Voyage embeddings/rerank over the recorded responses and request bodies.

Every request goes through the `options` fixture's httpx.MockTransport (`router`, tests/tools/conftest.py);
the session-wide guard in tests/network_guard.py refuses any real host.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from agent.errors import ConfigurationError, SourceError
from agent.tools.models.cohere_rerank import CohereReranker
from agent.tools.models.voyage import VoyageEmbedder, VoyageReranker, decode_embedding
from tests.tools.helpers import fixture_json, fixture_response, json_response

COHERE = "https://api.cohere.com/v2/rerank"
VOYAGE_EMBED = "https://api.voyageai.com/v1/embeddings"
VOYAGE_RERANK = "https://api.voyageai.com/v1/rerank"


# --- Cohere --------------------------------------------------------------------------------------


async def test_cohere_request_matches_the_recorded_one(router, options):
    router.add("POST", COHERE, fixture_response("cohere/rerank_v2_rerank-v3.5_two_docs.json"))
    recorded = fixture_json("cohere/rerank_v2_rerank-v3.5_two_docs.request.json")
    reranker = CohereReranker(api_key="co-dummy-1", options=options)
    scores = await reranker.rerank(recorded["query"], recorded["documents"])
    assert scores == pytest.approx([0.10415817, 0.0872602])
    sent = json.loads(router.requests[0].content)
    assert {k: sent[k] for k in ("model", "query", "documents")} == {
        k: recorded[k] for k in ("model", "query", "documents")
    }
    assert sent["top_n"] == 2 and reranker.name == "cohere:rerank-v3.5"
    assert router.requests[0].headers["authorization"] == "Bearer co-dummy-1"


async def test_cohere_scores_are_mapped_back_by_index(router, options):
    body = fixture_json("cohere/rerank_v2_rerank-v3.5_penguins.json")
    body["results"].reverse()  # the service sorts by score; alignment must come from `index`
    router.add("POST", COHERE, json_response(body))
    scores = await CohereReranker(api_key="co-dummy-1", options=options).rerank(
        "penguins", ["penguins live in Antarctica", "a toaster"]
    )
    assert scores == pytest.approx([0.54594, 0.028374104])


async def test_cohere_empty_input_makes_no_call(router, options):
    assert await CohereReranker(api_key="co-dummy-1", options=options).rerank("q", []) == []
    assert router.requests == []


def test_cohere_missing_key():
    with pytest.raises(ConfigurationError, match="COHERE_API_KEY") as caught:
        CohereReranker()
    assert "Cohere" in str(caught.value)


# --- Voyage embeddings ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("response", "request_fixture", "kind"),
    [
        (
            "voyage/embeddings_voyage-3.5_query_base64.json",
            "voyage/embeddings_voyage-3.5_query_base64.request.json",
            "query",
        ),
        (
            "voyage/embeddings_voyage-3.5_documents_base64.json",
            "voyage/embeddings_voyage-3.5_documents_base64.request.json",
            "document",
        ),
        (
            "voyage/embeddings_voyage-4_query_base64.json",
            "voyage/embeddings_voyage-4_query_base64.request.json",
            "query",
        ),
    ],
)
async def test_voyage_embeddings_decode_base64_and_normalise(router, options, response, request_fixture, kind):
    recorded = fixture_json(request_fixture)
    router.add("POST", VOYAGE_EMBED, fixture_response(response))
    embedder = VoyageEmbedder(api_key="pa-dummy-1", model=recorded["model"], options=options)
    matrix = await embedder.embed(recorded["input"], kind=kind)
    assert matrix.shape == (len(recorded["input"]), 1024) and matrix.dtype == np.float32
    assert np.allclose(np.linalg.norm(matrix, axis=1), 1.0, atol=1e-5)
    sent = json.loads(router.requests[0].content)
    for key in ("input", "model", "input_type", "encoding_format"):
        assert sent[key] == recorded[key]


async def test_voyage_input_type_null_recording_decodes_the_same_way(router, options):
    recorded = fixture_json("voyage/embeddings_voyage-3.5_input_type_null.request.json")
    assert recorded["input_type"] is None  # raw-text embedding; the agent always sends query/document
    router.add("POST", VOYAGE_EMBED, fixture_response("voyage/embeddings_voyage-3.5_input_type_null.json"))
    matrix = await VoyageEmbedder(api_key="pa-dummy-1", model="voyage-3.5", options=options).embed(
        recorded["input"], kind="document"
    )
    query = decode_embedding(fixture_json("voyage/embeddings_voyage-3.5_query_base64.json")["data"][0]["embedding"])
    similarity = float(matrix[0] @ (query / np.linalg.norm(query)))
    assert 0.5 < similarity < 0.999  # same text, different input_type: close but not identical


async def test_voyage_rows_follow_index_and_float_lists_work(router, options):
    router.add(
        "POST",
        VOYAGE_EMBED,
        json_response({"data": [{"index": 1, "embedding": [0.0, 2.0]}, {"index": 0, "embedding": [3.0, 4.0]}]}),
    )
    matrix = await VoyageEmbedder(api_key="pa-dummy-1", options=options).embed(["a", "b"], kind="query")
    assert np.allclose(matrix, [[0.6, 0.8], [0.0, 1.0]])
    assert json.loads(router.requests[0].content)["model"] == "voyage-3.5-lite"


async def test_voyage_bad_model_is_a_source_error(router, options):
    recorded = fixture_json("voyage/error_400_unsupported_model.request.json")
    router.add("POST", VOYAGE_EMBED, fixture_response("voyage/error_400_unsupported_model.json", 400))
    with pytest.raises(SourceError, match="voyage: HTTP 400: Model nonexistent is not supported") as caught:
        await VoyageEmbedder(api_key="pa-dummy-1", model=recorded["model"], options=options).embed(
            recorded["input"], kind="query"
        )
    assert len(str(caught.value)) <= 220


async def test_voyage_count_mismatch_and_truncated_base64(router, options):
    router.add("POST", VOYAGE_EMBED, json_response({"data": [{"index": 0, "embedding": "AAAA"}]}))
    with pytest.raises(SourceError, match="expected 2 embeddings, got 1"):
        await VoyageEmbedder(api_key="pa-dummy-1", options=options).embed(["a", "b"], kind="query")
    with pytest.raises(SourceError, match="truncated base64"):
        decode_embedding("AAAAAAA=")


def test_voyage_missing_key():
    with pytest.raises(ConfigurationError, match="VOYAGE_API_KEY"):
        VoyageEmbedder()
    with pytest.raises(ConfigurationError, match="VOYAGE_API_KEY"):
        VoyageReranker()


# --- Voyage rerank (no recorded sample exists; shape from the API docs) -----------------------------


async def test_voyage_rerank_aligns_scores(router, options):
    body = {
        "object": "list",
        "data": [{"index": 2, "relevance_score": 0.9}, {"index": 0, "relevance_score": 0.4}],
        "model": "rerank-2.5",
        "usage": {"total_tokens": 12},
    }
    router.add("POST", VOYAGE_RERANK, json_response(body))
    reranker = VoyageReranker(api_key="pa-dummy-1", options=options)
    assert await reranker.rerank("q", ["a", "b", "c"]) == pytest.approx([0.4, 0.0, 0.9])
    sent = json.loads(router.requests[0].content)
    assert sent["model"] == "rerank-2.5" and sent["documents"] == ["a", "b", "c"] and sent["return_documents"] is False
    assert reranker.name == "voyage:rerank-2.5"
