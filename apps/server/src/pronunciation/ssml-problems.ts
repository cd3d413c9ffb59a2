/**
 * Why saxes refused an SSML document, in the words the contract's catalogue translates (`XML_PROBLEMS` in its errors):
 * the same reasons a reader is given whatever parser reads the document.
 */

/** The parser's reason for refusing a document, in the words the contract's catalogue translates (`XML_PROBLEMS`). */
export function saxesProblem(reason: string, text: string, at: number, rootSeen: boolean): string {
  const name = (from: number) => (/^[^\s/>]*/.exec(text.slice(from))?.[0] ?? '').slice(0, 40);
  if (reason.startsWith('disallowed character in tag name')) {
    const lt = text.lastIndexOf('<', at);
    return /\s/.test(text[lt + 1] ?? ' ') ? 'a tag name must follow "<"' : `"${name(lt + 1)}" is not a valid tag name`;
  }
  if (reason.startsWith('unmatched closing tag: '))
    return `the closing tag </${reason.slice(23, -1).slice(0, 40)}> has no opening tag`;
  if (reason.startsWith('disallowed character in closing tag'))
    return `the closing tag </${name(text.lastIndexOf('</', at) + 2)}> is malformed`;
  if (reason.startsWith('duplicate attribute: ')) return `the attribute ${reason.slice(21, -1).slice(0, 40)} is repeated`;
  if (reason === 'attribute without value.' || reason === 'value required.') {
    const attribute = /([^\s=/>]+)\s*\/?>?$/.exec(text.slice(0, at + 1).trimEnd())?.[1] ?? '';
    return `the attribute ${attribute.slice(0, 40)} has no value`;
  }
  if (
    reason === 'unquoted attribute value.' ||
    reason === 'no whitespace between attributes.' ||
    reason.startsWith('disallowed character in attribute name')
  )
    return `the attribute "${name(text.lastIndexOf(' ', at) + 1).replace(/=.*/, '')}" is malformed`;
  if (reason === 'text data outside of root node.')
    return rootSeen ? 'there is content after the root element' : `the character "${text[at]}" is not allowed here`;
  if (reason === 'documents may contain only one root.') return 'there is content after the root element';
  if (reason === 'document must contain a root element.') return 'the document has no element';
  if (/XML declaration must (?:be|appear) at the start/.test(reason)) return 'the XML declaration must open the document';
  if (reason === 'unexpected end.') return 'some tags are not closed';
  return 'the markup is malformed';
}
