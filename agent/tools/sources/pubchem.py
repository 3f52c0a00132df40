"""PubChem PUG REST client: chemical name → CID → synonyms, CAS numbers, IUPAC name and properties.

Used for entity expansion: `expand("aspirin")` returns the top synonyms so retrieval also finds papers
that name the compound differently. PubChem asks for at most 5 requests/s and reports its load in
`X-Throttling-Control`; `follow_throttling` slows the pacer as that turns yellow/red. Properties accept
both the post-July-2025 SMILES keys (`SMILES`, `ConnectivitySMILES`) and the legacy ones
(`IsomericSMILES`, `CanonicalSMILES`). Not-found is a 404 with a JSON `Fault`, returned as "no result".
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote

from pydantic import BaseModel, Field

from agent.tools.http import ApiClient, HostPolicy, HttpBase, HttpOptions, Pacer
from agent.tools.http.parsing import dig, items_of

BASE_URL = "https://pubchem.ncbi.nlm.nih.gov/rest/pug/"
POLICY = HostPolicy(min_interval_s=0.2, max_concurrency=1, max_attempts=4, backoff_base_s=1.0)
PROPERTIES = "Title,IUPACName,MolecularFormula,MolecularWeight,SMILES,ConnectivitySMILES,InChI,InChIKey"
_THROTTLE = re.compile(r"\b(green|yellow|red|black)\b", re.I)
_SLOWDOWN = {"green": 1.0, "yellow": 2.0, "red": 5.0, "black": 10.0}
_CAS = re.compile(r"^(\d{2,7})-(\d{2})-(\d)$")
# Registry codes rather than names: 'UNII-R16CO5Y76E', 'NSC 27223', 'DTXSID5020108', '50-78-2'.
_CODE_LIKE = re.compile(r"^(?:[A-Z]{2,}[\s_-]?[A-Z0-9-]*\d[A-Z0-9-]*|[A-Z0-9]{10,}|\d[\d-]*)$")


def follow_throttling(headers: Mapping[str, str], pacer: Pacer, policy: HostPolicy) -> None:
    """Space requests 1×/2×/5×/10× the base interval as PubChem's worst status is green/yellow/red/black."""
    value = headers.get("x-throttling-control")
    if value:
        worst = max((_SLOWDOWN[s.lower()] for s in _THROTTLE.findall(value)), default=1.0)
        pacer.update(min_interval_s=policy.min_interval_s * worst)


def fault_message(body: Any) -> str | None:
    """PubChem's error body: {"Fault": {"Code", "Message", "Details": [...]}} -> the message and its details."""
    fault = body.get("Fault") if isinstance(body, dict) else None
    if not isinstance(fault, dict):
        return None
    return (
        " ".join(str(x) for x in [fault.get("Message") or fault.get("Code"), *(fault.get("Details") or [])] if x)
        or None
    )


def is_cas_number(text: str) -> bool:
    """A CAS Registry Number with a valid check digit ('50-00-0')."""
    match = _CAS.match(text.strip())
    if not match:
        return False
    digits = (match.group(1) + match.group(2))[::-1]
    return sum((i + 1) * int(d) for i, d in enumerate(digits)) % 10 == int(match.group(3))


class CompoundProperties(BaseModel):
    """Identifiers and basic properties of one compound."""

    cid: int
    title: str | None = None
    iupac_name: str | None = None
    molecular_formula: str | None = None
    molecular_weight: str | None = None
    smiles: str | None = Field(None, description="Full SMILES with stereo/isotopes (formerly IsomericSMILES).")
    connectivity_smiles: str | None = Field(None, description="SMILES without stereo (formerly CanonicalSMILES).")
    inchi: str | None = None
    inchikey: str | None = None

    @classmethod
    def from_property_row(cls, row: dict[str, Any]) -> CompoundProperties:
        """A PropertyTable row, new or legacy SMILES keys."""
        weight = row.get("MolecularWeight")
        return cls(
            cid=int(row["CID"]),
            title=row.get("Title"),
            iupac_name=row.get("IUPACName"),
            molecular_formula=row.get("MolecularFormula"),
            molecular_weight=str(weight) if weight is not None else None,
            smiles=row.get("SMILES") or row.get("IsomericSMILES"),
            connectivity_smiles=row.get("ConnectivitySMILES") or row.get("CanonicalSMILES"),
            inchi=row.get("InChI"),
            inchikey=row.get("InChIKey"),
        )

    @classmethod
    def from_pc_compound(cls, compound: dict[str, Any]) -> CompoundProperties:
        """A full-record PC_Compounds entry: values live in `props` under (label, name) URNs."""
        values: dict[tuple[str, str], Any] = {}
        for prop in compound.get("props") or []:
            urn, value = prop.get("urn") or {}, prop.get("value") or {}
            values[(urn.get("label", ""), urn.get("name", ""))] = next(iter(value.values()), None)
        return cls(
            cid=int(dig(compound, "id", "id", "cid")),
            iupac_name=values.get(("IUPAC Name", "Preferred")),
            molecular_formula=values.get(("Molecular Formula", "")),
            molecular_weight=values.get(("Molecular Weight", "")),
            smiles=values.get(("SMILES", "Absolute")) or values.get(("SMILES", "Isomeric")),
            connectivity_smiles=values.get(("SMILES", "Connectivity")) or values.get(("SMILES", "Canonical")),
            inchi=values.get(("InChI", "Standard")),
            inchikey=values.get(("InChIKey", "Standard")),
        )


class Compound(BaseModel):
    """What entity expansion knows about a name."""

    name: str
    cid: int
    properties: CompoundProperties | None = None
    synonyms: list[str] = Field(default_factory=list)
    cas_numbers: list[str] = Field(default_factory=list)


class PubChemClient(ApiClient):
    """Entity expander over PUG REST (no key)."""

    name = "pubchem"

    def __init__(self, *, options: HttpOptions | None = None, base_url: str = BASE_URL, expansions: int = 3):
        self.http = HttpBase(
            self.name, base_url, policy=POLICY, options=options, adapt=follow_throttling, read_error=fault_message
        )
        self.expansions = expansions

    async def cids(self, name: str) -> list[int]:
        """CIDs for a name (PubChem's curated best match comes first); [] when unknown."""
        data = await self._by_name(name, "cids")
        return [int(c) for c in items_of(self.name, data, "IdentifierList", "CID")] if data is not None else []

    async def properties(self, cids: list[int]) -> list[CompoundProperties]:
        """Property rows for CIDs (one row per CID, whatever SMILES keys the server uses)."""
        if not cids:
            return []
        path = f"compound/cid/{','.join(map(str, cids))}/property/{PROPERTIES}/JSON"
        data = await self.http.get_json(path)
        if data is None:
            return []
        return [
            CompoundProperties.from_property_row(r)
            for r in items_of(self.name, data, "PropertyTable", "Properties")
            if isinstance(r, dict) and "CID" in r
        ]

    async def synonyms(self, cid: int) -> list[str]:
        data = await self.http.get_json(f"compound/cid/{cid}/synonyms/JSON")
        return self._first_synonyms(data)

    async def full_records(self, name: str) -> list[CompoundProperties]:
        """Identifiers from the full PC_Compounds record (one call, no synonyms)."""
        data = await self._by_name(name, "")
        return (
            [CompoundProperties.from_pc_compound(c) for c in items_of(self.name, data, "PC_Compounds")]
            if data is not None
            else []
        )

    async def describe(self, name: str) -> Compound | None:
        """CID, properties (IUPAC name, SMILES, InChIKey…), synonyms and CAS numbers for a name."""
        cids = await self.cids(name)
        if not cids:
            return None
        props, synonyms = await asyncio.gather(self.properties(cids[:1]), self.synonyms(cids[0]))
        return Compound(
            name=name,
            cid=cids[0],
            properties=props[0] if props else None,
            synonyms=synonyms,
            cas_numbers=[s for s in synonyms if is_cas_number(s)],
        )

    async def expand(self, entity: str) -> list[str]:
        """Up to `expansions` (3) alternative names for a chemical, best first; [] when PubChem has none.

        Registry codes (CAS numbers, UNII-/CHEBI:-style ids) and the entity itself are skipped: they
        rarely appear in abstracts.
        """
        synonyms = self._first_synonyms(await self._by_name(entity, "synonyms"))
        seen = {entity.strip().lower()}
        names: list[str] = []
        for synonym in synonyms:
            key = synonym.strip().lower()
            if key in seen or ":" in synonym or _CODE_LIKE.match(synonym.strip()) or len(synonym) > 80:
                continue
            seen.add(key)
            names.append(synonym.strip())
            if len(names) >= self.expansions:
                break
        return names

    async def _by_name(self, name: str, operation: str) -> Any:
        # Names with '/' cannot go in the URL path: PubChem takes them as a POST form field.
        suffix = f"{operation}/JSON" if operation else "JSON"
        if "/" in name:
            response = await self.http.request(
                "POST", f"compound/name/{suffix}", form={"name": name}, expect=(200, 404), cacheable=True
            )
            return response.data
        return await self.http.get_json(f"compound/name/{quote(name.strip(), safe='')}/{suffix}")

    def _first_synonyms(self, data: Any) -> list[str]:
        if data is None:
            return []
        info = items_of(self.name, data, "InformationList", "Information")
        return [s for s in (dig(info, 0, "Synonym") or []) if isinstance(s, str)]
