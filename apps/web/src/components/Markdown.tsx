import { Fragment, useMemo, type ReactNode } from 'react';
import { Anchor, Blockquote, Code, Divider, List, Table, Text, Title } from '@mantine/core';
import { parseMarkdown, type Block, type Inline } from '../lib/markdown';

function inline(nodes: Inline[]): ReactNode {
  return nodes.map((node, i) => {
    switch (node.type) {
      case 'text':
        return <Fragment key={i}>{node.value}</Fragment>;
      case 'code':
        return <Code key={i}>{node.value}</Code>;
      case 'strong':
        return <strong key={i}>{inline(node.children)}</strong>;
      case 'em':
        return <em key={i}>{inline(node.children)}</em>;
      case 'link': {
        const external = /^(https?:|mailto:)/i.test(node.href);
        return (
          <Anchor key={i} href={node.href} {...(external ? { target: '_blank', rel: 'noopener noreferrer' } : {})}>
            {inline(node.children)}
          </Anchor>
        );
      }
    }
  });
}

function block(node: Block, i: number): ReactNode {
  switch (node.type) {
    case 'heading':
      return (
        <Title key={i} order={node.level} mt={node.level <= 2 ? 'xl' : 'lg'} mb="xs">
          {inline(node.children)}
        </Title>
      );
    case 'paragraph':
      return (
        <Text key={i} mb="sm" style={{ lineHeight: 1.7 }}>
          {inline(node.children)}
        </Text>
      );
    case 'list':
      return (
        <List key={i} type={node.ordered ? 'ordered' : 'unordered'} start={node.start} mb="sm" spacing={4} withPadding>
          {node.items.map((item, j) => (
            <List.Item key={j}>{inline(item)}</List.Item>
          ))}
        </List>
      );
    case 'quote':
      return (
        <Blockquote key={i} mb="sm" p="md">
          {node.children.map(block)}
        </Blockquote>
      );
    case 'code':
      return (
        <Code key={i} block mb="sm">
          {node.value}
        </Code>
      );
    case 'rule':
      return <Divider key={i} my="lg" />;
    case 'table':
      return (
        <Table.ScrollContainer key={i} minWidth={400} mb="sm">
          <Table withTableBorder striped>
            <Table.Thead>
              <Table.Tr>
                {node.header.map((cell, j) => (
                  <Table.Th key={j}>{inline(cell)}</Table.Th>
                ))}
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {node.rows.map((row, r) => (
                <Table.Tr key={r}>
                  {row.map((cell, j) => (
                    <Table.Td key={j}>{inline(cell)}</Table.Td>
                  ))}
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      );
  }
}

export function Markdown({ source }: { source: string }) {
  const blocks = useMemo(() => parseMarkdown(source), [source]);
  return <div data-testid="markdown">{blocks.map(block)}</div>;
}
