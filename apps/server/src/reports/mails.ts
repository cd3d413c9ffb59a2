/** The mails a report sends: its outcome to the reporter (in the report's language), the takedown to the voice's owner. */
type Mail = { subject: string; text: string };
type Outcome = 'actioned' | 'rejected';

const OUTCOME: Record<string, { subject: string; body: (id: string, outcome: Outcome) => string }> = {
  en: {
    subject: 'Your report to Polyvox',
    body: (id, o) =>
      `Thank you for your report ${id}.\n\n${
        o === 'actioned'
          ? 'We reviewed it and took action: the voice or account concerned can no longer be used.'
          : 'We reviewed it and found no breach of our rules, so no action was taken.'
      }\n\nYou can reply to this message if you have more to tell us.\n`,
  },
  'zh-CN': {
    subject: '你向 Polyvox 提交的举报',
    body: (id, o) =>
      `感谢你的举报（${id}）。\n\n${
        o === 'actioned'
          ? '我们已核查并作出处理：相关声音或账号已无法再使用。'
          : '我们已核查，未发现违反规则的情况，因此未作处理。'
      }\n\n如有补充信息，可直接回复本邮件。\n`,
  },
  'zh-TW': {
    subject: '你向 Polyvox 提交的檢舉',
    body: (id, o) =>
      `感謝你的檢舉（${id}）。\n\n${
        o === 'actioned'
          ? '我們已審查並作出處理：相關聲音或帳號已無法再使用。'
          : '我們已審查，未發現違反規則的情況，因此未作處理。'
      }\n\n如有補充資訊，可直接回覆本郵件。\n`,
  },
};

export function outcomeMail(id: string, outcome: Outcome, locale: string): Mail {
  const t = (Object.hasOwn(OUTCOME, locale) ? OUTCOME[locale] : undefined) ?? OUTCOME.en!;
  return { subject: t.subject, text: t.body(id, outcome) };
}

/** The owner's notice: the account keeps no language, so the three are in one message. */
export function takedownMail(voiceName: string, voiceId: string): Mail {
  return {
    subject: 'Your Polyvox voice was taken down / 你的 Polyvox 声音已被下架 / 你的 Polyvox 聲音已被下架',
    text:
      [
        `Your voice "${voiceName}" (${voiceId}) was taken down after a report of misuse. It can no longer be used, and mixes made with it stop working. If you believe this is a mistake, reply to this message.`,
        `你的声音“${voiceName}”（${voiceId}）因被举报滥用已下架，无法再使用，用它制作的混合声音也已停用。如有异议，请回复本邮件。`,
        `你的聲音「${voiceName}」（${voiceId}）因被檢舉濫用已下架，無法再使用，用它製作的混合聲音也已停用。如有異議，請回覆本郵件。`,
      ].join('\n\n') + '\n',
  };
}

/** The notice to a saved mix's owner: a voice in the mix was taken down, so the mix was too. */
export function mixTakedownMail(mixName: string, mixId: string): Mail {
  return {
    subject: 'Your Polyvox mix was taken down / 你的 Polyvox 混合声音已被下架 / 你的 Polyvox 混合聲音已被下架',
    text:
      [
        `Your mixed voice "${mixName}" (${mixId}) was taken down: a voice in it was taken down after a report of misuse. It can no longer be used. If you believe this is a mistake, reply to this message.`,
        `你的混合声音“${mixName}”（${mixId}）已下架：其中的一个声音因被举报滥用已下架，该混合声音无法再使用。如有异议，请回复本邮件。`,
        `你的混合聲音「${mixName}」（${mixId}）已下架：其中的一個聲音因被檢舉濫用已下架，該混合聲音無法再使用。如有異議，請回覆本郵件。`,
      ].join('\n\n') + '\n',
  };
}
