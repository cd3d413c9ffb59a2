import type { AdminMessages } from './types';

export const moderationZhTW: Pick<AdminMessages, 'moderation'> = {
  moderation: {
    title: '內容審核',
    description:
      '每段文字在合成或扣費之前都要經過審核：內建詞表、下面您自己的詞表，以及已設定的外部審核服務。被拒絕的文字會收到不提及任何詞表的提示，並依「設定」中的保留期限保存在這裡。',
    listTitle: '自有詞表',
    listBody:
      '在所有文字中拒絕的詞語，比對方式與內建詞表相同（大小寫、全半形、繁簡字、插入的空格和形近字母均不影響）。立即生效，無需重新啟動。',
    term: '詞語',
    category: '類別',
    add: '新增',
    added: '已加入詞表',
    removed: '已從詞表移除',
    remove: '移除',
    emptyList: '詞表為空',
    hitsTitle: '被拒絕的文字',
    account: '帳戶 ID',
    filter: '篩選',
    more: '顯示更多',
    emptyHits: '沒有被拒絕的文字',
    sources: { words: '內建詞表', operator: '自有詞表', aliyun: '阿里雲', openai: 'OpenAI' },
    columns: { at: '時間', account: '帳戶', route: '介面', source: '來源', category: '類別', text: '文字', by: '新增者' },
  },
};
