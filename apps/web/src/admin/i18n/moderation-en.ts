/** English texts of the Moderation page (spread into `adminEn`). */
export const moderationEn = {
  moderation: {
    title: 'Moderation',
    description:
      'Every text is reviewed before it is spoken or charged: the built-in lists, your own list below, and the external provider where one is configured. A refused text is answered with a message that names no list; it is kept here for the retention period set in Settings.',
    listTitle: 'Your own list',
    listBody:
      'Words and phrases refused in every text, matched as the built-in lists are (case, width, Traditional and Simplified characters, spacing and lookalike letters do not matter). In force at once, with no restart.',
    term: 'Word or phrase',
    category: 'Category',
    add: 'Add',
    added: 'Added to the list',
    removed: 'Removed from the list',
    remove: 'Remove',
    emptyList: 'Your list is empty',
    hitsTitle: 'Refused texts',
    account: 'Account id',
    filter: 'Filter',
    more: 'Show more',
    emptyHits: 'No refused texts',
    sources: { words: 'Built-in list', operator: 'Your list', aliyun: 'Alibaba Cloud', openai: 'OpenAI' },
    columns: {
      at: 'Time',
      account: 'Account',
      route: 'Route',
      source: 'Source',
      category: 'Category',
      text: 'Text',
      by: 'Added by',
    },
  },
};
