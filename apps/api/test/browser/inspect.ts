import type { Browser, HTTPRequest, Page } from 'puppeteer-core';
import type { Dom, DomElement } from './dom.js';

/** What a page load is judged on: its status, what went wrong while it loaded, its width and its charts. */

export interface Visit {
  /** The address on the server. */
  path: string;
  width: number;
  height: number;
  /** Request headers (an API key for the memos). */
  headers?: Record<string, string>;
  /** Sent as a JSON POST instead of a GET: a memo of a portfolio is asked for with its holdings. */
  post?: unknown;
  /** A selector to wait for after the load: a page drawn by script (the API reference) has drawn itself then. */
  ready?: string;
  /** Run on the loaded page before it is measured (the test of the watchers themselves breaks the page here). */
  after?: (page: Page) => Promise<void>;
}

export interface ChartView {
  /** The class of the drawing (`chart chart-narrow`). */
  className: string;
  /** Its computed display: `none` for the layout not shown at this width. */
  display: string;
  title: string;
  /** Its width on the page, in CSS px, and the width of its viewBox, in SVG units. */
  renderedWidth: number;
  viewBoxWidth: number;
  /** Its smallest text as rendered: the computed font size scaled by rendered width over viewBox width. */
  smallestText: { text: string; px: number } | null;
}

export interface Observation {
  status: number | null;
  consoleErrors: string[];
  pageErrors: string[];
  /** Requests that failed (a network error or a block) or were answered 400 or above, besides the page itself. */
  failedRequests: string[];
  /** `securitypolicyviolation` events, and console errors that report a Content Security Policy. */
  cspViolations: string[];
  scrollWidth: number;
  innerWidth: number;
  /** Elements reaching past the right edge of the window, outside any box that scrolls or clips them. */
  overflowing: string[];
  /** `.wide` boxes whose content is wider than they are, so it scrolls sideways within them: named by their table. */
  scrollingBoxes: string[];
  /**
   * Band badges whose text is cut: wider than the badge itself, or reaching past a box that scrolls or clips it (a
   * table scrolled in its box, cut at its edge) or the window.
   */
  clippedBadges: string[];
  charts: ChartView[];
}

/** Seen by every document before its own content runs (injected over DevTools, so the pages' CSP does not block it). */
function recordViolations(): void {
  const window = globalThis as unknown as Dom;
  const seen: string[] = [];
  Object.defineProperty(window, '__cspViolations', { value: seen });
  window.document.addEventListener('securitypolicyviolation', (e) => {
    seen.push(`${e.violatedDirective} blocked ${e.blockedURI || '(inline)'} at ${e.sourceFile}:${e.lineNumber}`);
  });
}

/** Measured in the page: its width, what sticks out, and every chart. */
function measure() {
  const window = globalThis as unknown as Dom;
  const { document, getComputedStyle } = window;
  const iw = window.innerWidth;
  const root = document.documentElement;
  const contained = (el: DomElement) => {
    for (let p = el.parentElement; p && p !== document.body && p !== root; p = p.parentElement) {
      if (getComputedStyle(p).overflowX !== 'visible') return true;
    }
    return false;
  };
  const overflowing: string[] = [];
  for (const el of Array.from(document.body.querySelectorAll('*'))) {
    const right = el.getBoundingClientRect().right;
    if (right > iw + 0.5 && !contained(el)) {
      const cls = (el.getAttribute('class') ?? '').trim().split(/\s+/).filter(Boolean);
      const text = (el.textContent ?? '').replace(/\s+/g, ' ').trim().slice(0, 50);
      overflowing.push(`${[el.tagName.toLowerCase(), ...cls].join('.')} to ${Math.round(right)} px: "${text}"`);
    }
  }
  const describe = (el: DomElement) => {
    const cls = (el.getAttribute('class') ?? '').trim().split(/\s+/).filter(Boolean);
    return `${[el.tagName.toLowerCase(), ...cls].join('.')} "${(el.textContent ?? '').replace(/\s+/g, ' ').trim().slice(0, 50)}"`;
  };
  const scrollingBoxes = Array.from(document.body.querySelectorAll('.wide'))
    .filter((box) => box.scrollWidth > box.clientWidth + 0.5)
    .map((box) => `${describe(box.querySelector('table') ?? box)}: ${box.scrollWidth} px wide in ${box.clientWidth}`);
  const clippedBadges: string[] = [];
  for (const badge of Array.from(document.body.querySelectorAll('.band'))) {
    if (getComputedStyle(badge).display === 'none' || badge.getBoundingClientRect().width === 0) continue;
    const rect = badge.getBoundingClientRect();
    if (badge.scrollWidth > badge.clientWidth + 0.5)
      clippedBadges.push(`${describe(badge)}: its text is wider than it`);
    // The boxes that clip it, innermost first, then the window.
    const boxes: { left: number; right: number; what: string }[] = [];
    for (let p = badge.parentElement; p && p !== document.body && p !== root; p = p.parentElement) {
      if (getComputedStyle(p).overflowX === 'visible') continue;
      const r = p.getBoundingClientRect();
      boxes.push({ left: r.left, right: r.left + p.clientWidth, what: describe(p).slice(0, 40) });
    }
    boxes.push({ left: 0, right: iw, what: 'the window' });
    const cut = boxes.find((b) => rect.left < b.left - 0.5 || rect.right > b.right + 0.5);
    if (cut) clippedBadges.push(`${describe(badge)}: cut at the edge of ${cut.what}`);
  }
  const charts = Array.from(document.body.querySelectorAll('svg.chart')).map((svg): ChartView => {
    const renderedWidth = svg.getBoundingClientRect().width;
    const viewBoxWidth = Number((svg.getAttribute('viewBox') ?? '').trim().split(/[\s,]+/)[2] ?? 0);
    const scale = viewBoxWidth > 0 ? renderedWidth / viewBoxWidth : 0;
    let smallestText: ChartView['smallestText'] = null;
    for (const t of Array.from(svg.querySelectorAll('text'))) {
      const px = Number.parseFloat(getComputedStyle(t).fontSize) * scale;
      if (smallestText === null || px < smallestText.px) smallestText = { text: t.textContent ?? '', px };
    }
    return {
      className: svg.getAttribute('class') ?? '',
      display: getComputedStyle(svg).display,
      title: svg.querySelector(':scope > title')?.textContent?.trim() ?? '',
      renderedWidth,
      viewBoxWidth,
      smallestText,
    };
  });
  return {
    scrollWidth: root.scrollWidth,
    innerWidth: iw,
    overflowing: overflowing.slice(0, 12),
    scrollingBoxes,
    clippedBadges,
    charts,
    cspViolations: window.__cspViolations ? [...window.__cspViolations] : ['the violation listener was not installed'],
  };
}

/**
 * Opens `visit.path` on `origin` at the width in a new tab, waits for it to load (and for `ready`), opens every
 * `<details>` (its content must fit too), measures it, writes a full-page screenshot to `screenshot`, and closes the
 * tab.
 */
export async function inspect(
  browser: Browser,
  origin: string,
  visit: Visit,
  screenshot: string,
): Promise<Observation> {
  const page = await browser.newPage();
  try {
    return await observe(page, new URL(visit.path, origin).href, visit, screenshot);
  } finally {
    await page.close();
  }
}

async function observe(page: Page, url: string, visit: Visit, screenshot: string): Promise<Observation> {
  const consoleErrors: string[] = [];
  const pageErrors: string[] = [];
  const failedRequests: string[] = [];
  const cspConsole: string[] = [];
  page.on('console', (m) => {
    if (m.type() !== 'error') return;
    const where = m.location().url;
    // An error page's own status (the 404 and 400 pages) is reported to the console too; the test asserts it.
    if (where === url && /^Failed to load resource: the server responded with a status of [45]\d\d\b/.test(m.text()))
      return;
    const line = `${m.text()}${where ? ` (${where})` : ''}`;
    consoleErrors.push(line);
    if (/Content Security Policy/i.test(m.text())) cspConsole.push(line);
  });
  page.on('pageerror', (e) => pageErrors.push(e instanceof Error ? e.message : String(e)));
  page.on('requestfailed', (r) => failedRequests.push(`${r.method()} ${r.url()}: ${r.failure()?.errorText}`));
  page.on('response', (r) => {
    if (r.status() >= 400 && !r.request().isNavigationRequest()) {
      failedRequests.push(`${r.request().method()} ${r.url()}: ${r.status()}`);
    }
  });
  await page.setViewport({ width: visit.width, height: visit.height });
  if (visit.headers) await page.setExtraHTTPHeaders(visit.headers);
  await page.evaluateOnNewDocument(recordViolations);
  if (visit.post !== undefined) await postNavigation(page, url, visit.post);
  const response = await page.goto(url, { waitUntil: 'load' });
  if (visit.ready) await page.waitForSelector(visit.ready, { timeout: 15_000 });
  // Late requests (Swagger UI's fetches, images) settle before anything is measured.
  await page.waitForNetworkIdle({ idleTime: 150, timeout: 10_000 });
  if (visit.after) await visit.after(page);
  await page.evaluate(() => {
    const { document } = globalThis as unknown as Dom;
    for (const details of Array.from(document.body.querySelectorAll('details'))) details.open = true;
  });
  const measured = await page.evaluate(measure);
  await page.screenshot({ path: screenshot as `${string}.png`, fullPage: true });
  return {
    status: response?.status() ?? null,
    consoleErrors,
    pageErrors,
    failedRequests,
    ...measured,
    cspViolations: [...measured.cspViolations, ...cspConsole],
  };
}

/** Turns the browser's navigation to `url` into a JSON POST of `body`, as a form or a script would send it. */
async function postNavigation(page: Page, url: string, body: unknown): Promise<void> {
  await page.setRequestInterception(true);
  page.on('request', (request: HTTPRequest) => {
    if (request.isNavigationRequest() && request.url() === url) {
      void request.continue({
        method: 'POST',
        postData: JSON.stringify(body),
        headers: { ...request.headers(), 'content-type': 'application/json' },
      });
    } else void request.continue();
  });
}
