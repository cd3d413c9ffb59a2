import ReactMarkdown, { type Components } from 'react-markdown';
import { Anchor, Blockquote, Code, Divider, List, Text, Title } from '@mantine/core';

const EXTERNAL = /^(https?:|mailto:)/i;

/** Mantine's typography for each Markdown element; raw HTML in a document is never rendered. */
const components: Components = {
  h1: ({ children }) => (
    <Title order={1} mt="xl" mb="xs">
      {children}
    </Title>
  ),
  h2: ({ children }) => (
    <Title order={2} mt="xl" mb="xs">
      {children}
    </Title>
  ),
  h3: ({ children }) => (
    <Title order={3} mt="lg" mb="xs">
      {children}
    </Title>
  ),
  h4: ({ children }) => (
    <Title order={4} mt="lg" mb="xs">
      {children}
    </Title>
  ),
  p: ({ children }) => (
    <Text mb="sm" style={{ lineHeight: 1.7 }}>
      {children}
    </Text>
  ),
  ul: ({ children }) => (
    <List type="unordered" mb="sm" spacing={4} withPadding>
      {children}
    </List>
  ),
  ol: ({ children, start }) => (
    <List type="ordered" start={start} mb="sm" spacing={4} withPadding>
      {children}
    </List>
  ),
  li: ({ children }) => <List.Item>{children}</List.Item>,
  blockquote: ({ children }) => (
    <Blockquote mb="sm" p="md">
      {children}
    </Blockquote>
  ),
  pre: ({ children }) => <div style={{ marginBottom: 'var(--mantine-spacing-sm)' }}>{children}</div>,
  code: ({ children, className }) =>
    className || String(children).includes('\n') ? <Code block>{children}</Code> : <Code>{children}</Code>,
  hr: () => <Divider my="lg" />,
  a: ({ href, children }) => (
    <Anchor href={href} {...(href && EXTERNAL.test(href) ? { target: '_blank', rel: 'noopener noreferrer' } : {})}>
      {children}
    </Anchor>
  ),
};

/** A server document (terms, privacy, release notes) rendered with react-markdown. */
export function Markdown({ source }: { source: string }) {
  return (
    <div data-testid="markdown">
      <ReactMarkdown components={components} skipHtml>
        {source}
      </ReactMarkdown>
    </div>
  );
}
