"""What `make load`'s readers ask for (bench/load.py): a walk of addresses in the
proportions of MIX, and the hot set, its first distinct addresses walked again and again."""

import random
from collections import Counter
from urllib.parse import urlencode

# Share of requests of each kind, and how each address is made.
MIX = {
    "case page": 30,
    "case JSON": 15,
    "list, first pages": 10,
    "list, filtered": 20,
    "list JSON, filtered": 8,
    "English search": 9,
    "Korean search": 8,
}
FACET_OF_VOCABULARY = {
    "root_cause": "cause",
    "component": "component",
    "symptom": "symptom",
    "contributing": "contributing",
    "domain": "domain",
}
SEVERITIES = ["low", "medium", "high", "critical"]
ENGLISH_QUERIES = [
    "database",
    "database latency",
    "cache",
    "load balancer",
    "scheduler",
    "storage",
    "dns resolver",
    "control plane",
    "api gateway",
    "gpu pool",
    "rollback",
    "retries",
    "checkpoint",
    "network fabric",
    "deploy pipeline",
]
KOREAN_QUERIES = [
    "데이터베이스",
    "캐시",
    "스케줄러",
    "스토리지",
    "로드 밸런서",
    "장애",
    "체크포인트",
    "네트워크",
    "배포 파이프라인",
    "지연 시간",
    "재시도",
    "대시보드",
]


def addresses(database_url, count, seed=1):
    """`count` request paths in the proportions of MIX (deterministic for a seed), how many of
    each kind, and the number of published cases. Many distinct case ids and filter
    combinations keep the page cache from answering everything; popular pages repeat, as
    they do for real readers."""
    import psycopg

    with psycopg.connect(database_url) as connection:
        public_ids = [
            row[0]
            for row in connection.execute(
                "SELECT public_id FROM cases_case WHERE status = 'published' "
                "AND draft_of_id IS NULL ORDER BY public_id"
            )
        ]
        terms = {}
        for vocabulary, slug in connection.execute(
            "SELECT vocabulary, slug FROM cases_term ORDER BY vocabulary, slug"
        ):
            terms.setdefault(FACET_OF_VOCABULARY[vocabulary], []).append(slug)
        orgs = [row[0] for row in connection.execute("SELECT slug FROM cases_organisation")]
    rng = random.Random(seed)

    def language():
        return rng.choice(["en", "ko"])

    def filters():
        query = {}
        for _ in range(rng.choice([1, 1, 2, 2, 3])):
            facet = rng.choice([*terms, "org", "severity"])
            values = {"org": orgs, "severity": SEVERITIES}.get(facet) or terms[facet]
            # Skewed towards the first values, as readers favour the common terms.
            query[facet] = values[min(int(rng.expovariate(0.15)), len(values) - 1)]
        if rng.random() < 0.2:
            query["page"] = rng.randint(2, 4)
        return urlencode(query)

    makers = {
        "case page": lambda: f"/{language()}/cases/{rng.choice(public_ids)}/",
        "case JSON": lambda: f"/{language()}/cases/{rng.choice(public_ids)}.json",
        "list, first pages": lambda: f"/{language()}/cases/?page={rng.randint(1, 3)}",
        "list, filtered": lambda: f"/{language()}/cases/?{filters()}",
        "list JSON, filtered": lambda: f"/{language()}/cases.json?{filters()}",
        "English search": lambda: "/en/cases/?" + urlencode({"q": rng.choice(ENGLISH_QUERIES)}),
        "Korean search": lambda: "/ko/cases/?" + urlencode({"q": rng.choice(KOREAN_QUERIES)}),
    }
    kinds = rng.choices(list(MIX), weights=list(MIX.values()), k=count)
    return [makers[kind]() for kind in kinds], Counter(kinds), len(public_ids)


HOT_SET = 80  # distinct addresses taking every request, as a popular site's traffic does


def hot_set(paths):
    """The walk's first HOT_SET distinct addresses."""
    return list(dict.fromkeys(paths))[:HOT_SET]
