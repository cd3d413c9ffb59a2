import { Anchor, Button, Group, Modal, Text } from '@mantine/core';
import { Trans, useTranslation } from 'react-i18next';

interface Props {
  opened: boolean;
  onAgree: () => void;
  onCancel: () => void;
}

/** Asked when the sign-in form is submitted without the agreement ticked; agreeing ticks it. */
export function AgreementDialog({ opened, onAgree, onCancel }: Props) {
  const { t } = useTranslation();
  return (
    <Modal opened={opened} onClose={onCancel} title={t('signIn.confirmTitle')} centered size="sm" zIndex={400}>
      <div data-testid="agree-dialog">
        <Text size="sm">
          {/* The documents open in a new tab, so the sign-in in progress is kept. */}
          <Trans
            i18nKey="signIn.confirmBody"
            components={{
              terms: <Anchor href="/#/terms" target="_blank" rel="noopener" inherit data-testid="agree-terms" />,
              privacy: <Anchor href="/#/privacy" target="_blank" rel="noopener" inherit data-testid="agree-privacy" />,
            }}
          />
        </Text>
        <Group justify="flex-end" mt="lg">
          <Button variant="default" onClick={onCancel} data-testid="agree-cancel">
            {t('signIn.confirmCancel')}
          </Button>
          <Button onClick={onAgree} data-testid="agree-confirm">
            {t('signIn.confirmAgree')}
          </Button>
        </Group>
      </div>
    </Modal>
  );
}
