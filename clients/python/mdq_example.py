#!/usr/bin/env python3
"""A first use of the Market Data Query Service from Python, with the standard library only.

    MDQ_URL=http://localhost:8080 MDQ_API_KEY=mdq_... python3 mdq_example.py [TICKER]

Without MDQ_API_KEY it reads the key `npm start` keeps in .data/dev-api-key. It POSTs one
request (the largest consolidated option trades of the ticker), walks the ticker's news with the
cursor page by page, and waits out any 429 for the seconds its Retry-After header gives.
Copy MdqClient into your own code: it is the whole client.
"""

import json
import os
import sys
import time
import urllib.error
import urllib.request


class MdqProblem(Exception):
    """An error answer: `status` is the HTTP status, `problem` the RFC 9457 body (type, title, detail, ...)."""

    def __init__(self, status, problem):
        super().__init__(f"{status} {problem.get('title', 'error')}: {problem.get('detail', '')}")
        self.status = status
        self.problem = problem


class MdqClient:
    def __init__(self, base_url, api_key, max_retries=5):
        self.base_url = base_url.rstrip("/")
        self.api_key = api_key
        self.max_retries = max_retries
        self.waits = []  # seconds waited after each 429, for the curious

    def post(self, path, body):
        """POSTs a JSON body to a path such as /v1/news/tool/news-articles and returns the JSON answer."""
        data = json.dumps(body).encode("utf-8")
        for attempt in range(self.max_retries + 1):
            request = urllib.request.Request(
                self.base_url + path,
                data=data,
                method="POST",
                headers={"Authorization": f"Bearer {self.api_key}", "Content-Type": "application/json"},
            )
            try:
                with urllib.request.urlopen(request, timeout=60) as response:
                    return json.load(response)
            except urllib.error.HTTPError as error:
                text = error.read().decode("utf-8", "replace")
                try:
                    problem = json.loads(text)
                except ValueError:
                    problem = {"detail": text}
                if error.code == 429 and attempt < self.max_retries:
                    # The quota is a sliding window: Retry-After says when this request would be allowed.
                    wait = max(1, int(error.headers.get("Retry-After", "1")))
                    self.waits.append(wait)
                    time.sleep(wait)
                    continue
                raise MdqProblem(error.code, problem) from None
        raise AssertionError("unreachable")

    def rows(self, path, body):
        """Every row of a cursor-paged endpoint: each page's nextSearchAfter is the next request's searchAfter."""
        search_after = body.get("searchAfter")
        while True:
            page = self.post(path, {**body, "searchAfter": search_after})
            yield from page["data"]
            search_after = page.get("nextSearchAfter")
            if not search_after:
                return


def api_key():
    key = os.environ.get("MDQ_API_KEY")
    if key:
        return key
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".data", "dev-api-key")
    with open(path, encoding="utf-8") as f:
        return f.read().strip()


def main():
    ticker = sys.argv[1] if len(sys.argv) > 1 else "SPY"
    client = MdqClient(os.environ.get("MDQ_URL", "http://localhost:8080"), api_key())

    # One request: the five largest consolidated trades of the ticker, latest session.
    answer = client.post(
        "/v1/options/tool/order-flow/consolidated",
        {"size": 5, "sort": {"field": "PREMIUM", "direction": "DESCENDING"}, "filter": {"tickers": [ticker]}},
    )
    print(f"largest consolidated trades of {ticker}: {len(answer['data'])}")
    for t in answer["data"]:
        print(f"  {t['id']} {t['contractType']} {t['strikePrice']} {t['expirationDate']} premium {t['premium']} {t['tradeConsolidationType']}")

    # A cursor walk: every news article tagging the ticker, 20 a page.
    articles = list(client.rows("/v1/news/tool/news-articles", {"size": 20, "filter": {"tickers": [ticker]}}))
    print(f"news articles tagging {ticker}: {len(articles)}")
    if articles:
        print(f"  newest: {articles[0]['title']}")
    print(f"429 answers waited out: {len(client.waits)} ({sum(client.waits)} s)")


if __name__ == "__main__":
    try:
        main()
    except MdqProblem as problem:
        print(problem, file=sys.stderr)
        sys.exit(1)
