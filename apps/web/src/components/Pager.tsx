import { Pagination, type PaginationProps } from '@mantine/core';
import { useTranslation } from 'react-i18next';

/** Mantine's pager with named arrows (first, previous, next, last), in the UI language; page buttons are named by their number. */
export function Pager(props: PaginationProps & { 'data-testid'?: string }) {
  const { t } = useTranslation();
  return <Pagination {...props} getControlProps={(control) => ({ 'aria-label': t(`common.pager.${control}`) })} />;
}
