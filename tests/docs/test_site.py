"""The built documentation site in a real browser: headless Chromium driven by chromedriver.

`make test-docs` builds the site (`make docs`) and runs this module with the docs virtualenv
(selenium); the main `make test` run leaves tests/docs out (pyproject's addopts). It serves
site/ on 127.0.0.1 and opens every page. It fails, and never skips, when the site, Chromium,
chromedriver or selenium is missing. The checks:

- every page that the built site holds loads, and the browser console shows no error;
- every internal link, image, stylesheet and script answers HTTP 200, every image decodes, and
  every `#fragment` names an element of its target page;
- the pages the docs promise exist;
- mkdocs-material's search finds the vector-env page for "autoreset";
- a screenshot of the home page is written to out/docs_home.png.
"""

from __future__ import annotations

import functools
import http.server
import re
import shutil
import threading
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as ec
from selenium.webdriver.support.ui import WebDriverWait

ROOT = Path(__file__).resolve().parents[2]
SITE = ROOT / "site"
SCREENSHOT = ROOT / "out" / "docs_home.png"
# Pages the README and the guides link to; more may exist.
REQUIRED = (
    "",
    "installation/",
    "quickstart/",
    "single_env/",
    "vector_env/",
    "collector/",
    "training/",
    "integrations/",
    "parity/",
    "benchmarks/",
    "api/",
    "behaviour/",
    "troubleshooting/",
    "architecture/",
    "changelog/",
)
# What a page references: (tag, attribute) pairs whose targets must load.
REFERENCES = (("a", "href"), ("img", "src"), ("link", "href"), ("script", "src"))


def built_pages() -> list[str]:
    """Paths of every page in site/ ("" for the home page, "api/" ...), 404 page excluded."""
    rels = (p.parent.relative_to(SITE).as_posix() for p in SITE.rglob("index.html"))
    return sorted("" if r == "." else f"{r}/" for r in rels if not r.startswith("assets"))


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - base signature
        pass


@pytest.fixture(scope="module")
def base_url() -> Iterator[str]:
    assert (SITE / "index.html").is_file(), f"no built site in {SITE}: run `make docs` first"
    handler = functools.partial(_QuietHandler, directory=str(SITE))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def browser() -> Iterator[webdriver.Chrome]:
    chromium = shutil.which("chromium")
    driver_path = shutil.which("chromedriver")
    assert chromium and driver_path, "needs Debian's chromium and chromium-driver (apt-get)"
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1280,900"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(options=options, service=Service(executable_path=driver_path))
    driver.set_page_load_timeout(30)
    yield driver
    driver.quit()


def open_page(browser: webdriver.Chrome, url: str) -> None:
    browser.get(url)
    WebDriverWait(browser, 20).until(
        lambda d: d.execute_script("return document.readyState") == "complete"
    )


@functools.cache
def fetch(url: str) -> tuple[int, str]:
    """HTTP status and, for HTML, the text of `url` (fragment removed)."""
    try:
        with urllib.request.urlopen(url, timeout=10) as r:
            kind = r.headers.get_content_type()
            return r.status, r.read().decode() if kind == "text/html" else ""
    except urllib.error.HTTPError as e:
        return e.code, ""


def page_problems(browser: webdriver.Chrome, base: str, page: str) -> list[str]:
    url = base + page
    open_page(browser, url)
    problems = [
        f"{page or '/'}: console {e['level']}: {e['message']}"
        for e in browser.get_log("browser")
        if e["level"] == "SEVERE"
    ]
    refs: list[str] = []
    for tag, attr in REFERENCES:
        refs += browser.execute_script(
            f"return Array.from(document.querySelectorAll('{tag}[{attr}]'), e => e.{attr});"
        )
    for ref in sorted(set(refs)):
        if not ref.startswith(base):
            continue  # external: not fetched (CI has no network)
        target, _, fragment = ref.partition("#")
        status, html = fetch(target)
        if status != 200:
            problems.append(f"{page or '/'}: {ref} -> HTTP {status}")
        elif fragment and not re.search(
            rf'\sid="{re.escape(urllib.parse.unquote(fragment))}"', html
        ):
            problems.append(f"{page or '/'}: {ref} -> no element with id {fragment!r}")
    broken = browser.execute_script(
        "return Array.from(document.images).filter(i => !i.complete || i.naturalWidth === 0)"
        ".map(i => i.src);"
    )
    problems += [f"{page or '/'}: image does not decode: {src}" for src in broken]
    return problems


def test_required_pages_are_built() -> None:
    assert (SITE / "index.html").is_file(), f"no built site in {SITE}: run `make docs` first"
    missing = sorted(set(REQUIRED) - set(built_pages()))
    assert not missing, f"pages missing from the site: {missing}"


def test_every_page_loads_cleanly_and_its_links_resolve(
    browser: webdriver.Chrome, base_url: str
) -> None:
    pages = built_pages()
    problems = [p for page in pages for p in page_problems(browser, base_url, page)]
    print(f"{len(pages)} pages checked: {', '.join(p or '/' for p in pages)}")
    assert not problems, "\n".join(problems)


def test_search_finds_the_vector_env_page_for_autoreset(
    browser: webdriver.Chrome, base_url: str
) -> None:
    open_page(browser, base_url)
    # The header shows the search box on wide windows; narrow ones open it with a button.
    if not browser.find_element(By.CSS_SELECTOR, "input.md-search__input").is_displayed():
        browser.find_element(By.CSS_SELECTOR, "label[for='__search']").click()
    box = WebDriverWait(browser, 10).until(
        ec.element_to_be_clickable((By.CSS_SELECTOR, "input.md-search__input"))
    )
    box.click()
    box.send_keys("autoreset")

    def result_links(d: webdriver.Chrome) -> list[str] | bool:
        links = d.execute_script(
            "return Array.from(document.querySelectorAll('.md-search-result__item a'),"
            " a => a.href);"
        )
        return links or False

    links = WebDriverWait(browser, 20).until(result_links)
    assert any(urllib.parse.urlparse(h).path == "/vector_env/" for h in links), links


def test_home_page_screenshot(browser: webdriver.Chrome, base_url: str) -> None:
    open_page(browser, base_url)
    SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
    assert browser.save_screenshot(str(SCREENSHOT)), "screenshot failed"
    assert SCREENSHOT.stat().st_size > 10_000, "the screenshot looks empty"
    print(f"home page screenshot: {SCREENSHOT}")
