/** The page shows the document's title itself: a first heading that repeats it is dropped. */
export function stripLeadingTitle(content: string, title: string): string {
  const match = /^\s*#\s+(.+?)\s*#*\s*(?:\r?\n|$)/.exec(content);
  if (match && match[1]?.trim().toLowerCase() === title.trim().toLowerCase())
    return content.slice(match[0].length).replace(/^\s+/, '');
  return content;
}
