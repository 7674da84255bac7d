/**
 * The little of the DOM the functions run inside the pages use, typed here because apps/api compiles for Node.js
 * without the DOM library (adding it would retype fetch and Headers for every test). In the page, `globalThis` is
 * the window: `const { document } = globalThis as unknown as Dom`.
 */

export interface DomElement {
  tagName: string;
  textContent: string | null;
  parentElement: DomElement | null;
  getAttribute(name: string): string | null;
  getBoundingClientRect(): { left: number; right: number; width: number };
  scrollWidth: number;
  clientWidth: number;
  querySelector(selector: string): DomElement | null;
  querySelectorAll(selector: string): ArrayLike<DomElement>;
  append(...nodes: DomElement[]): void;
  insertAdjacentHTML(position: 'beforeend', html: string): void;
  style: { width: string };
  /** `<details>` */
  open?: boolean;
  /** `<img>` */
  src?: string;
}

export interface ViolationEvent {
  violatedDirective: string;
  blockedURI: string;
  sourceFile: string;
  lineNumber: number;
}

export interface Dom {
  innerWidth: number;
  document: {
    documentElement: DomElement & { scrollWidth: number };
    body: DomElement;
    createElement(tag: string): DomElement;
    addEventListener(type: 'securitypolicyviolation', listener: (event: ViolationEvent) => void): void;
  };
  getComputedStyle(element: DomElement): { overflowX: string; display: string; fontSize: string };
  /** What recordViolations saw. */
  __cspViolations?: string[];
}
