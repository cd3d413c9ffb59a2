import type { AdminMessages } from './types';

export const moderationZhCN: Pick<AdminMessages, 'moderation'> = {
  moderation: {
    title: '内容审核',
    description:
      '每段文本在合成或扣费之前都要经过审核：内置词表、下面您自己的词表，以及已配置的外部审核服务。被拒绝的文本会收到不提及任何词表的提示，并按“设置”中的保留期限保存在这里。',
    listTitle: '自有词表',
    listBody:
      '在所有文本中拒绝的词语，匹配方式与内置词表相同（大小写、全半角、繁简字、插入的空格和形近字母均不影响）。立即生效，无需重启。',
    term: '词语',
    category: '类别',
    add: '添加',
    added: '已加入词表',
    removed: '已从词表移除',
    remove: '移除',
    emptyList: '词表为空',
    hitsTitle: '被拒绝的文本',
    account: '账户 ID',
    filter: '筛选',
    more: '显示更多',
    emptyHits: '没有被拒绝的文本',
    sources: { words: '内置词表', operator: '自有词表', aliyun: '阿里云', openai: 'OpenAI' },
    columns: { at: '时间', account: '账户', route: '接口', source: '来源', category: '类别', text: '文本', by: '添加人' },
  },
};
