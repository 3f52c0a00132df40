"""PubChem client: recorded identifier/property/full-record bodies, Fault errors, expansion, throttling.

Every request goes through the `options` fixture's httpx.MockTransport (`router`, tests/tools/conftest.py);
the session-wide guard in tests/network_guard.py refuses any real host.
"""

from __future__ import annotations

from urllib.parse import parse_qs

import pytest

from agent.errors import SourceError
from agent.tools.http import HostPolicy, Pacer
from agent.tools.sources.pubchem import CompoundProperties, PubChemClient, follow_throttling, is_cas_number
from tests.tools.helpers import FakeClock, fixture_json, fixture_response, json_response

PUG = "https://pubchem.ncbi.nlm.nih.gov/rest/pug"
NOT_FOUND = {
    "Fault": {
        "Code": "PUGREST.NotFound",
        "Message": "No CID found",
        "Details": ["No CID found that matches the given name"],
    }
}
ASPIRIN_SYNONYMS = {
    "InformationList": {
        "Information": [
            {
                "CID": 2244,
                "Synonym": [
                    "aspirin",
                    "ACETYLSALICYLIC ACID",
                    "50-78-2",
                    "2-Acetoxybenzoic acid",
                    "UNII-R16CO5Y76E",
                    "CHEBI:15365",
                    "Acetylsalicylate",
                    "Polopiryna",
                ],
            },
        ]
    }
}


async def test_name_to_cids(router, options):
    router.add(
        "GET",
        f"{PUG}/compound/name/albuterol/cids/JSON",
        fixture_response("pubchem/quoted_issue_cids_fastidentity_albuterol.json"),
    )
    assert await PubChemClient(options=options).cids("albuterol") == [2083, 123600, 182176]


async def test_unknown_name_fault_404_is_empty(router, options):
    router.add("GET", f"{PUG}/compound/name/notachemical/cids/JSON", json_response(NOT_FOUND, 404))
    router.add("GET", f"{PUG}/compound/name/notachemical/synonyms/JSON", json_response(NOT_FOUND, 404))
    client = PubChemClient(options=options)
    assert await client.cids("notachemical") == []
    assert await client.describe("notachemical") is None
    assert await client.expand("notachemical") == []


async def test_bad_request_fault_is_a_source_error_with_its_message(router, options):
    fault = {"Fault": {"Code": "PUGREST.BadRequest", "Message": "Invalid property", "Details": ["Bogus"]}}
    router.add(
        "GET",
        f"{PUG}/compound/cid/2244/property/Title,IUPACName,MolecularFormula,MolecularWeight,SMILES,ConnectivitySMILES,InChI,InChIKey/JSON",
        json_response(fault, 400),
    )
    with pytest.raises(SourceError, match="pubchem: HTTP 400: Invalid property Bogus"):
        await PubChemClient(options=options).properties([2244])


@pytest.mark.parametrize(
    ("fixture", "smiles", "connectivity"),
    [
        ("pubchem/quoted_issue_property_IsomericSMILES_alias_cid2244.json", "CC(=O)OC1=CC=CC=C1C(=O)O", None),
        ("pubchem/quoted_issue_property_CanonicalSMILES_alias_cid2244.json", None, "CC(=O)OC1=CC=CC=C1C(=O)O"),
    ],
)
def test_property_rows_after_the_2025_smiles_rename(fixture, smiles, connectivity):
    row = fixture_json(fixture)["PropertyTable"]["Properties"][0]
    props = CompoundProperties.from_property_row(row)
    assert (props.cid, props.smiles, props.connectivity_smiles) == (2244, smiles, connectivity)


def test_legacy_smiles_keys_still_parse():
    props = CompoundProperties.from_property_row(
        {"CID": 241, "IsomericSMILES": "C1=CC=CC=C1", "CanonicalSMILES": "C1=CC=CC=C1", "MolecularWeight": 78.11}
    )
    assert props.smiles == props.connectivity_smiles == "C1=CC=CC=C1" and props.molecular_weight == "78.11"


@pytest.mark.parametrize(
    ("name", "fixture", "cid", "iupac", "inchikey", "formula"),
    [
        (
            "benzene",
            "pubchem/compound_name_benzene_json.PC_Compounds_value.json",
            241,
            "benzene",
            "UHOVQNZJYSORNB-UHFFFAOYSA-N",
            "C6H6",
        ),
        (
            "50-01-1",
            "pubchem/compound_name_CAS_50-01-1_json.PC_Compounds_value.json",
            5742,
            "guanidine;hydrochloride",
            "PJJJBBJSCAKJQF-UHFFFAOYSA-N",
            "CH6ClN3",
        ),
    ],
)
async def test_full_records(router, options, name, fixture, cid, iupac, inchikey, formula):
    router.add("GET", f"{PUG}/compound/name/{name}/JSON", json_response({"PC_Compounds": fixture_json(fixture)}))
    (props,) = await PubChemClient(options=options).full_records(name)
    assert (props.cid, props.iupac_name, props.inchikey, props.molecular_formula) == (cid, iupac, inchikey, formula)
    assert props.smiles and props.connectivity_smiles


async def test_describe_collects_iupac_cas_and_synonyms(router, options):
    router.add("GET", f"{PUG}/compound/name/aspirin/cids/JSON", json_response({"IdentifierList": {"CID": [2244]}}))
    router.add(
        "GET",
        f"{PUG}/compound/cid/2244/property/Title,IUPACName,MolecularFormula,MolecularWeight,SMILES,ConnectivitySMILES,InChI,InChIKey/JSON",
        json_response(
            {
                "PropertyTable": {
                    "Properties": [
                        {
                            "CID": 2244,
                            "Title": "Aspirin",
                            "IUPACName": "2-acetyloxybenzoic acid",
                            "SMILES": "CC(=O)OC1=CC=CC=C1C(=O)O",
                        }
                    ]
                }
            }
        ),
    )
    router.add("GET", f"{PUG}/compound/cid/2244/synonyms/JSON", json_response(ASPIRIN_SYNONYMS))
    compound = await PubChemClient(options=options).describe("aspirin")
    assert compound is not None and compound.cid == 2244
    assert compound.properties and compound.properties.iupac_name == "2-acetyloxybenzoic acid"
    assert compound.cas_numbers == ["50-78-2"]


async def test_expand_returns_top_three_names_without_codes(router, options):
    router.add("GET", f"{PUG}/compound/name/Aspirin/synonyms/JSON", json_response(ASPIRIN_SYNONYMS))
    assert await PubChemClient(options=options).expand("Aspirin") == [
        "ACETYLSALICYLIC ACID",
        "2-Acetoxybenzoic acid",
        "Acetylsalicylate",
    ]


async def test_names_with_slash_go_in_a_post_form(router, options):
    router.add("POST", f"{PUG}/compound/name/synonyms/JSON", json_response(ASPIRIN_SYNONYMS))
    await PubChemClient(options=options).expand("sodium 2/3 salt")
    request = router.requests[0]
    assert parse_qs(request.content.decode()) == {"name": ["sodium 2/3 salt"]}


async def test_server_busy_is_retried(router, options):
    busy = {"Fault": {"Code": "PUGREST.ServerBusy", "Message": "Too many requests or server too busy"}}
    router.add(
        "GET", f"{PUG}/compound/name/aspirin/synonyms/JSON", json_response(busy, 503), json_response(ASPIRIN_SYNONYMS)
    )
    assert len(await PubChemClient(options=options).expand("aspirin")) == 3


def test_throttling_header_slows_the_pacer():
    pacer = Pacer(0.2, 1, FakeClock())
    policy = HostPolicy(min_interval_s=0.2)
    follow_throttling(
        {
            "x-throttling-control": (
                "Request Count status: Yellow (60%), Request Time status: Green (10%), Service status: Green (5%)"
            )
        },
        pacer,
        policy,
    )
    assert pacer.min_interval_s == pytest.approx(0.4)
    follow_throttling(
        {"x-throttling-control": "Request Count status: Red (90%), Request Time status: Black (100%)"}, pacer, policy
    )
    assert pacer.min_interval_s == pytest.approx(2.0)
    follow_throttling({"x-throttling-control": "Request Count status: Green (1%)"}, pacer, policy)
    assert pacer.min_interval_s == pytest.approx(0.2)


def test_cas_check_digit():
    assert is_cas_number("50-78-2") and is_cas_number("7732-18-5") and is_cas_number("50-01-1")
    assert not is_cas_number("50-78-3") and not is_cas_number("aspirin")
