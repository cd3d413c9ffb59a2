import { Alert, Anchor, Code, Text } from '@mantine/core';
import { IconAlertTriangle } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { lineAt } from '../../../speech/ssml';
import type { SsmlProblem } from './useSpokenForm';

interface Props {
  text: string;
  problem: SsmlProblem;
  /** Selects the place in the text field. */
  onShow: (offset: number) => void;
}

/** The server's SSML error, with the line it names and a caret under its column. */
export function SsmlProblemView({ text, problem, onShow }: Props) {
  const { t } = useTranslation();
  const place = problem.place;
  const at = place ? lineAt(text, place) : null;
  return (
    <Alert color="red" variant="light" mt="xs" icon={<IconAlertTriangle size={16} />} data-testid="playground-ssml-error">
      <Text size="sm">{problem.message}</Text>
      {place && at && (
        <>
          <Code block mt={6} data-testid="playground-ssml-error-line" data-line={place.line} data-column={place.column}>
            {`${at.line}\n${' '.repeat(Math.max(0, place.column - 1))}^`}
          </Code>
          <Anchor
            component="button"
            type="button"
            size="sm"
            mt={4}
            onClick={() => onShow(at.offset)}
            data-testid="playground-ssml-show"
          >
            {t('playground.ssmlShow', { line: String(place.line), column: String(place.column) })}
          </Anchor>
        </>
      )}
    </Alert>
  );
}
