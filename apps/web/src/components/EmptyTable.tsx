import { Paper, Table } from '@mantine/core';
import { EmptyState } from './EmptyState';
import { WideTable } from './WideTable';

/** A table's real columns over an empty state, for lists whose rows arrive with a later feature. */
export function EmptyTable({ columns, title, body }: { columns: string[]; title: string; body: string }) {
  return (
    <Paper withBorder radius="md">
      <WideTable minWidth={560}>
        <Table>
          <Table.Thead>
            <Table.Tr>
              {columns.map((c) => (
                <Table.Th key={c}>{c}</Table.Th>
              ))}
            </Table.Tr>
          </Table.Thead>
        </Table>
      </WideTable>
      <EmptyState title={title} body={body} bordered={false} />
    </Paper>
  );
}
