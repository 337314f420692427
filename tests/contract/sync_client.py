"""A CRM-style sync through the Python client that openapi-python-client generates from
openapi.json (tests/contract/run.sh generates it into target/ and runs this against the
worker it started): list cards, create one, patch it, delete it, list leads. Every step
goes through the typed models, so a document the generator cannot turn into a usable client
fails here. Exits non-zero on the first assertion that fails.

Usage: python sync_client.py BASE_URL TOKEN   (with the generated package on PYTHONPATH)
"""

import sys
import uuid

from cardapi_client import AuthenticatedClient
from cardapi_client.api.default import (
    create_card,
    delete_card,
    get_card,
    list_cards,
    list_leads,
    patch_card,
)
from cardapi_client.models import (
    Card,
    CardCreate,
    CardList,
    CardMessage,
    CardStatus,
    CardUpdate,
    CardWithLeads,
    DesignConfig,
    Language,
    Lead,
    LeadList,
    Message,
    Platform,
    SocialLinkInput,
)

# The lead run.sh seeds through the public lead form before this script runs.
SEED_LEAD_EMAIL = "lead@example.com"


def check(condition: bool, what: str) -> None:
    if not condition:
        raise AssertionError(what)


def main(base_url: str, token: str) -> None:
    client = AuthenticatedClient(base_url=base_url, token=token, raise_on_unexpected_status=True)
    key = uuid.uuid4().hex

    # listCards: the seeded cards, as Card models.
    r = list_cards.sync_detailed(client=client, per_page=100)
    check(r.status_code == 200, f"listCards: {r.status_code} {r.content!r}")
    page = r.parsed
    check(isinstance(page, CardList), f"listCards parsed as {type(page)}")
    check(len(page.data) >= 2 and all(isinstance(c, Card) for c in page.data), "listCards: the seeded cards")
    check(page.meta.total == len(page.data), "listCards: meta.total")
    before = page.meta.total

    # createCard: free-form design_config and an enum-typed social link go in and come back.
    design = DesignConfig.from_dict({"theme": "dark", "colors": {"primary": "#112233"}})
    body = CardCreate(
        first_name="Sync",
        last_name=f"Python {key[:8]}",
        email="sync.python@example.com",
        language=Language.DE,
        is_public=True,
        design_config=design,
        social_links=[SocialLinkInput(platform=Platform.LINKEDIN, url="https://www.linkedin.com/in/sync")],
    )
    r = create_card.sync_detailed(client=client, body=body, idempotency_key=f"sync-py-{key}")
    check(r.status_code == 201, f"createCard: {r.status_code} {r.content!r}")
    created = r.parsed
    check(isinstance(created, CardMessage) and isinstance(created.message, str), "createCard: CardMessage")
    card = created.data
    check(card.first_name == "Sync" and card.language == Language.DE, "createCard: fields")
    check(card.status == CardStatus.ACTIVE, f"createCard: status {card.status}")
    check(card.design_config["colors"] == {"primary": "#112233"}, f"createCard: design_config {card.design_config}")
    check(card.social_links[0].platform == "linkedin", f"createCard: social_links {card.social_links}")
    check(Language.DE in card.available_languages, "createCard: available_languages")

    # patchCard: only the fields sent change.
    r = patch_card.sync_detailed(
        card.id,
        client=client,
        body=CardUpdate(job_title="Integrations", status=CardStatus.DRAFT),
        idempotency_key=f"sync-py-patch-{key}",
    )
    check(r.status_code == 200, f"patchCard: {r.status_code} {r.content!r}")
    patched = r.parsed.data
    check(patched.job_title == "Integrations" and patched.status == CardStatus.DRAFT, "patchCard: changed fields")
    check(patched.email == "sync.python@example.com", "patchCard: other fields unchanged")
    check(patched.updated_at >= card.updated_at, "patchCard: updated_at")

    r = get_card.sync_detailed(card.id, client=client)
    check(r.status_code == 200 and isinstance(r.parsed.data, CardWithLeads), f"getCard: {r.status_code}")
    check(r.parsed.data.leads == [] and r.parsed.data.job_title == "Integrations", "getCard: the patched card")

    # deleteCard: gone afterwards.
    r = delete_card.sync_detailed(card.id, client=client, idempotency_key=f"sync-py-delete-{key}")
    check(r.status_code == 200 and isinstance(r.parsed, Message), f"deleteCard: {r.status_code} {r.content!r}")
    r = get_card.sync_detailed(card.id, client=client)
    check(r.status_code == 404, f"getCard after delete: {r.status_code}")
    r = list_cards.sync_detailed(client=client, per_page=100)
    check(r.parsed.meta.total == before, "listCards after delete: the count it had")

    # listLeads: the seeded lead, as Lead models.
    r = list_leads.sync_detailed(client=client, per_page=100)
    check(r.status_code == 200, f"listLeads: {r.status_code} {r.content!r}")
    leads = r.parsed
    check(isinstance(leads, LeadList) and all(isinstance(lead, Lead) for lead in leads.data), "listLeads: LeadList")
    check(any(lead.email == SEED_LEAD_EMAIL for lead in leads.data), "listLeads: the seeded lead")
    print(f"python client: listed {before} cards, created, patched and deleted card {card.id}, listed {len(leads.data)} leads")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
