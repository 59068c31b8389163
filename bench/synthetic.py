"""Synthetic cases that look like real ones, for measuring speed at scale.

Deterministic for a seed: the same seed gives the same cases, byte for byte. Terms and
organisations are used with a Zipf-like skew, as in a real library where a few causes and
components recur and most appear rarely. Texts have the lengths of IL-0585's and mention the
case's terms, so searches and suggestions find something.
"""

import datetime
import random

from cases.models import Vocabulary

VOCABULARY_SIZES = {
    Vocabulary.ROOT_CAUSE: 24,
    Vocabulary.COMPONENT: 72,
    Vocabulary.SYMPTOM: 48,
    Vocabulary.CONTRIBUTING: 48,
    Vocabulary.DOMAIN: 12,
}
ORGANISATIONS = 400
FIRST_DATE = datetime.date(2011, 1, 1)
DAYS = 15 * 365

# (English, Korean) word pairs that make term labels and organisation names.
QUALITIES = [
    ("Primary", "주"),
    ("Regional", "지역"),
    ("Shared", "공유"),
    ("Internal", "내부"),
    ("Edge", "엣지"),
    ("Batch", "배치"),
    ("Streaming", "스트리밍"),
    ("Metadata", "메타데이터"),
    ("Billing", "과금"),
    ("Identity", "인증"),
    ("Search", "검색"),
    ("Training", "학습"),
]
THINGS = [
    ("database", "데이터베이스"),
    ("cache", "캐시"),
    ("queue", "큐"),
    ("load balancer", "로드 밸런서"),
    ("scheduler", "스케줄러"),
    ("storage", "스토리지"),
    ("DNS resolver", "DNS 리졸버"),
    ("control plane", "컨트롤 플레인"),
    ("API gateway", "API 게이트웨이"),
    ("GPU pool", "GPU 풀"),
    ("network fabric", "네트워크 패브릭"),
    ("deploy pipeline", "배포 파이프라인"),
]
COMPANY_WORDS = [
    "Acme",
    "Northwind",
    "Globex",
    "Initech",
    "Umbrella",
    "Hooli",
    "Vandelay",
    "Stark",
    "Wayne",
    "Tyrell",
    "Cyberdyne",
    "Soylent",
    "Wonka",
    "Gringotts",
    "Oscorp",
    "Aperture",
    "Monarch",
    "Dunder",
    "Pied Piper",
    "Massive Dynamic",
]
COMPANY_SUFFIXES = [
    "Cloud",
    "Labs",
    "Systems",
    "Networks",
    "AI",
    "Data",
    "Pay",
    "Games",
    "Health",
    "Media",
    "Logistics",
    "Mobile",
    "Bank",
    "Retail",
    "Energy",
    "Travel",
    "Telecom",
    "Search",
    "Social",
    "Security",
]

EN_SENTENCES = [
    "The {a} stopped answering requests after a routine change to the {b}.",
    "Engineers first suspected the {b}, because its latency rose at the same moment.",
    "Retries from clients multiplied the load on the {a} within minutes.",
    "Dashboards showed the error rate climbing while throughput fell by half.",
    "The on-call engineer paged the team that owns the {a} and opened an incident channel.",
    "A rollback of the last configuration push restored part of the traffic.",
    "Capacity was added by hand, since automatic scaling waited for signals that never came.",
    "Some requests were served from stale data until the {b} caught up again.",
    "The incident lasted several hours and affected customers in more than one region.",
    "The post-mortem lists the timeline, the contributing factors and the follow-up work.",
    "Alerts fired late because the metric that mattered was not on any dashboard.",
    "The team rehearsed the recovery afterwards and wrote down each step.",
]
KO_SENTENCES = [
    "{b} 설정을 바꾸는 일상적인 작업 뒤에 {a} 가 요청에 응답하지 않았다.",
    "지연 시간이 같은 때에 늘었기 때문에 엔지니어들은 처음에 {b} 를 의심했다.",
    "클라이언트의 재시도가 몇 분 안에 {a} 의 부하를 몇 배로 늘렸다.",
    "대시보드에서 오류율이 오르고 처리량이 절반으로 떨어졌다.",
    "당직 엔지니어가 {a} 를 맡은 팀을 호출하고 장애 대응 채널을 열었다.",
    "마지막 설정 배포를 되돌리자 트래픽 일부가 돌아왔다.",
    "자동 확장이 오지 않는 신호를 기다려서, 팀이 손으로 용량을 늘렸다.",
    "{b} 가 따라잡을 때까지 일부 요청은 오래된 데이터로 처리됐다.",
    "장애는 몇 시간 이어졌고 여러 지역의 고객에게 영향을 주었다.",
    "사후 분석 문서는 타임라인과 기여 요인, 후속 작업을 정리했다.",
    "중요한 지표가 어떤 대시보드에도 없어서 알림이 늦게 울렸다.",
    "팀은 나중에 복구 절차를 연습하고 단계마다 기록으로 남겼다.",
]


def zipf_weights(count, exponent=1.1):
    return [1 / (rank**exponent) for rank in range(1, count + 1)]


def vocabulary_terms(vocabulary, size):
    """[(slug, English label, Korean label)] for one vocabulary, the same for every seed."""
    prefix = {
        Vocabulary.ROOT_CAUSE: ("cause", "failure", "장애"),
        Vocabulary.COMPONENT: ("component", "", ""),
        Vocabulary.SYMPTOM: ("symptom", "trouble", "문제"),
        Vocabulary.CONTRIBUTING: ("factor", "gap", "공백"),
        Vocabulary.DOMAIN: ("domain", "platform", "플랫폼"),
    }[vocabulary]
    terms = []
    for index in range(size):
        quality = QUALITIES[index % len(QUALITIES)]
        thing = THINGS[(index // len(QUALITIES)) % len(THINGS)]
        en = " ".join(part for part in (quality[0], thing[0], prefix[1]) if part)
        ko = " ".join(part for part in (quality[1], thing[1], prefix[2]) if part)
        terms.append((f"syn-{prefix[0]}-{index + 1}", en.capitalize(), ko))
    return terms


def organisations():
    names = []
    for index in range(ORGANISATIONS):
        word = COMPANY_WORDS[index % len(COMPANY_WORDS)]
        suffix = COMPANY_SUFFIXES[(index // len(COMPANY_WORDS)) % len(COMPANY_SUFFIXES)]
        names.append(f"{word} {suffix}")
    return names


class CaseGenerator:
    def __init__(self, seed=1, first_id=100_000):
        self.random = random.Random(seed)
        self.first_id = first_id
        self.terms = {v: vocabulary_terms(v, size) for v, size in VOCABULARY_SIZES.items()}
        self.weights = {v: zipf_weights(len(t)) for v, t in self.terms.items()}
        self.orgs = organisations()
        self.org_weights = zipf_weights(len(self.orgs), 0.9)

    def pick(self, vocabulary, count):
        chosen = []
        while len(chosen) < count:
            (term,) = self.random.choices(self.terms[vocabulary], self.weights[vocabulary])
            if term not in chosen:
                chosen.append(term)
        return chosen

    def text(self, sentences, length, a, b):
        parts, size = [], 0
        while size < length:
            sentence = self.random.choice(sentences).format(a=a, b=b)
            parts.append(sentence)
            size += len(sentence) + 1
        # Paragraphs of four sentences, as case texts have.
        return "\n\n".join(" ".join(parts[i : i + 4]) for i in range(0, len(parts), 4))

    def case(self, index):
        rnd = self.random
        case_id = f"IL-{self.first_id + index}"
        org = rnd.choices(self.orgs, self.org_weights)[0]
        date = FIRST_DATE + datetime.timedelta(days=rnd.randrange(DAYS))
        cause = self.pick(Vocabulary.ROOT_CAUSE, 1)[0]
        components = self.pick(Vocabulary.COMPONENT, rnd.randint(1, 3))
        symptoms = self.pick(Vocabulary.SYMPTOM, rnd.randint(1, 3))
        contributing = self.pick(Vocabulary.CONTRIBUTING, rnd.randint(0, 3))
        domains = self.pick(Vocabulary.DOMAIN, 1)
        a_en, a_ko = components[0][1].lower(), components[0][2]
        b_en, b_ko = (components[-1][1].lower(), components[-1][2])

        def both(length_en, length_ko):
            return {
                "en": self.text(EN_SENTENCES, length_en, a_en, b_en),
                "ko": self.text(KO_SENTENCES, length_ko, a_ko, b_ko),
            }

        earlier = [f"IL-{self.first_id + j}" for j in rnd.sample(range(index), min(index, 2))]
        return {
            "id": case_id,
            "org": org,
            "date": date.isoformat(),
            "date_kind": "occurred",
            "title": {
                "en": f"{components[0][1]} failure at {org}: {symptoms[0][1].lower()}",
                "ko": f"{org} 의 {components[0][2]} 장애: {symptoms[0][2]}",
            },
            "summary": both(1300, 1000),
            "trigger": both(200, 150),
            "detection": both(400, 300),
            "lessons": both(500, 400),
            "symptoms_text": both(1800, 1300),
            "impact": {"scope": "Customers of one region", "users": "unknown", "region": "unknown"},
            "severity": rnd.choice(["unknown", "low", "medium", "high", "critical"]),
            "domain": [t[0] for t in domains],
            "symptoms": [t[0] for t in symptoms],
            "components": [t[0] for t in components],
            "contributing": [t[0] for t in contributing],
            "root_cause": cause[0],
            "timeline": {"detected_after": f"PT{rnd.randint(1, 180)}M", "resolved_after": None},
            "remediation": [{"en": "Rolled back the change.", "ko": "변경을 되돌렸다."}],
            "action_items": [
                {"en": "Add an alert on the queue depth.", "ko": "큐 길이에 알림을 단다."}
            ],
            "related": earlier[: rnd.randint(0, len(earlier))],
            "recurrence_of": None,
            "sources": [
                {
                    "url": f"https://status.example.org/incidents/{case_id.lower()}",
                    "kind": "postmortem",
                    "archived": None,
                }
            ],
            "docs": [],
            "review": {"written_by": "generator", "reviewed_at": None, "reviewed_by": None},
            "updated_at": None,
        }

    def cases(self, count):
        for index in range(count):
            yield self.case(index)

    def taxonomy(self):
        """The synthetic terms with both labels, in the taxonomy file's form."""
        keys = {
            Vocabulary.ROOT_CAUSE: "root_cause",
            Vocabulary.COMPONENT: "component",
            Vocabulary.SYMPTOM: "symptom",
            Vocabulary.CONTRIBUTING: "contributing",
            Vocabulary.DOMAIN: "domain",
        }
        return [
            {
                "vocabulary": keys[vocabulary],
                "slug": slug,
                "label_en": en,
                "label_ko": ko,
                "description_en": "",
                "description_ko": "",
                "aliases_en": "",
                "aliases_ko": "",
            }
            for vocabulary, terms in self.terms.items()
            for slug, en, ko in terms
        ]
