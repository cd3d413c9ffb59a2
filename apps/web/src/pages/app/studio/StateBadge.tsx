import { Badge } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import type { Project } from '../../../studio/api';

const COLOR: Record<Project['state'], string> = { creating: 'gray', default: 'teal', converting: 'violet', in_queue: 'orange' };

/** A project's state (ready, queued, converting), in words and a colour. */
export function StateBadge({ state }: { state: Project['state'] }) {
  const { t } = useTranslation();
  return (
    <Badge variant="light" color={COLOR[state]} data-testid="project-state" data-state={state}>
      {t(`studio.state.${state}`)}
    </Badge>
  );
}
