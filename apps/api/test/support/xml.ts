import { SaxesParser } from 'saxes';

/** An element of a parsed XML document: its name, attributes, child elements and text (entities decoded). */
export interface XmlElement {
  name: string;
  attributes: Record<string, string>;
  children: XmlElement[];
  text: string;
}

/**
 * Parses a document with saxes, a conforming XML 1.0 parser (the one jsdom uses): it refuses every
 * well-formedness error, characters XML forbids (C0 controls, U+FFFE, U+FFFF) included, as a feed
 * reader would. Throws on the first error; returns the root element.
 */
export function parseXml(text: string): XmlElement {
  const parser = new SaxesParser({ xmlns: false, position: true });
  const stack: XmlElement[] = [];
  let root: XmlElement | undefined;
  let failure: Error | undefined;
  parser.on('error', (error) => {
    failure ??= error;
  });
  parser.on('opentag', (tag) => {
    const element: XmlElement = {
      name: tag.name,
      attributes: { ...(tag.attributes as Record<string, string>) },
      children: [],
      text: '',
    };
    const parent = stack.at(-1);
    if (parent) parent.children.push(element);
    else root = element;
    stack.push(element);
  });
  parser.on('closetag', () => {
    stack.pop();
  });
  parser.on('text', (t) => {
    const current = stack.at(-1);
    if (current) current.text += t;
  });
  parser.on('cdata', (t) => {
    const current = stack.at(-1);
    if (current) current.text += t;
  });
  parser.write(text).close();
  if (failure) throw failure;
  if (!root) throw new Error('no root element');
  return root;
}

/** Every element named `name` under `element`, in document order. */
export function elementsNamed(element: XmlElement, name: string): XmlElement[] {
  const found: XmlElement[] = [];
  const walk = (e: XmlElement) => {
    if (e.name === name) found.push(e);
    for (const c of e.children) walk(c);
  };
  walk(element);
  return found;
}
