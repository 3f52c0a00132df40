"""The assistant routes: the one assistant (`sparkit`, read-only), its schemas, drawing and subgraphs, and /info;
what LangGraph Studio asks for to open the graph. Each `(request, service, user) -> Response` but /info, which holds
nothing of a user's and is asked before a key is (agent/service/http_api.py)."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from agent.service import graph_info
from agent.service.requests import GRAPH_ID, assistant_or_404
from agent.service.service import Service
from agent.service.shapes import assistant_json


async def info(request: Request) -> Response:
    return JSONResponse(graph_info.server_info())


async def search_assistants(request: Request, service: Service, user: str) -> Response:
    return JSONResponse([assistant_json()])


async def get_assistant(request: Request, service: Service, user: str) -> Response:
    assistant_or_404(request.path_params["assistant_id"])
    return JSONResponse(assistant_json())


async def schemas(request: Request, service: Service, user: str) -> Response:
    assistant_or_404(request.path_params["assistant_id"])
    return JSONResponse({"graph_id": GRAPH_ID, **graph_info.schemas(service.typed_graph())})


async def drawing(request: Request, service: Service, user: str) -> Response:
    assistant_or_404(request.path_params["assistant_id"])
    xray = graph_info.xray_param(request.query_params.get("xray"))
    return JSONResponse(graph_info.drawing(service.typed_graph(), xray))


async def subgraphs(request: Request, service: Service, user: str) -> Response:
    assistant_or_404(request.path_params["assistant_id"])
    recurse = request.query_params.get("recurse", "false") in ("true", "True")
    found = graph_info.subgraphs(service.typed_graph(), request.path_params.get("namespace"), recurse)
    return JSONResponse(found)
