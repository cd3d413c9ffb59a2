/**
 * Writes the moderation bench's sentence sets (fixtures/moderation/), deterministically (a seeded generator over
 * templates written for this project; no text is copied from elsewhere):
 * - ordinary.txt: 1,000 ordinary sentences, 500 English and 500 Chinese, a third each news, fiction, product copy;
 * - prohibited.txt: sentences carrying a word of the shipped lists' speech categories (profanity, political) or of the
 *   bench's operator list, disguised the ways people try: Traditional characters, spaces and punctuation between
 *   characters, full-width forms, Cyrillic lookalikes, leetspeak, zero-width characters, letters put between Chinese characters.
 * `npx tsx bench/moderation-fixture.ts` writes both; the bench reads them.
 */
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
export const FIXTURE_DIR = path.join(root, 'fixtures/moderation');

/** mulberry32: the same sequence on every machine. */
function rng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const EN = {
  news: {
    who: [
      'The city council',
      'A regional hospital',
      'The national weather service',
      'Local farmers',
      'The transport ministry',
      'A group of volunteers',
      'The central bank',
      'Researchers at the university',
      'The harbour authority',
      'Organisers of the marathon',
    ],
    did: [
      'announced a new plan for',
      'reported steady progress on',
      'opened a public consultation about',
      'published figures on',
      'set aside funds for',
      'warned of delays to',
      'celebrated the completion of',
      'began work on',
    ],
    what: [
      'the riverside park',
      'the northern railway line',
      'school lunches',
      'flood defences',
      'the spring harvest',
      'cheaper bus fares',
      'the old library',
      'solar panels on public buildings',
      'a cycling lane downtown',
      'the children’s museum',
    ],
    when: [
      'on Monday.',
      'this week.',
      'after months of planning.',
      'ahead of the summer season.',
      'earlier today.',
      'for the coming year.',
    ],
  },
  fiction: {
    who: [
      'Mara',
      'The old fisherman',
      'Her younger brother',
      'The tired detective',
      'A stranger in a grey coat',
      'The baker’s daughter',
      'Captain Ellis',
      'The twins',
      'Our neighbour',
      'The lighthouse keeper',
    ],
    did: [
      'quietly opened',
      'looked for a long time at',
      'carried',
      'forgot all about',
      'smiled when she found',
      'argued gently over',
      'followed the map towards',
      'painted',
    ],
    what: [
      'the wooden box',
      'the letter from the north',
      'a basket of plums',
      'the broken clock',
      'the lantern by the door',
      'an old photograph',
      'the garden gate',
      'the little blue boat',
      'a song from childhood',
      'the last train ticket',
    ],
    when: [
      'as the rain began.',
      'before anyone woke.',
      'while the kettle whistled.',
      'under a pale moon.',
      'on the first warm evening of spring.',
      'and said nothing at all.',
    ],
  },
  product: {
    who: [
      'Our new backpack',
      'This kettle',
      'The travel mug',
      'Our reading lamp',
      'This running shoe',
      'The wireless speaker',
      'Our garden hose',
      'The kitchen scale',
      'This notebook',
      'Our winter jacket',
    ],
    did: [
      'keeps you comfortable with',
      'comes with',
      'is built around',
      'saves time thanks to',
      'stands out for',
      'is designed with',
    ],
    what: [
      'a light recycled frame',
      'a two-year warranty',
      'soft, washable fabric',
      'a battery that lasts all week',
      'a one-touch button',
      'quiet, steady performance',
      'a clever folding design',
      'three colours to choose from',
      'easy cleaning',
      'a gentle warm glow',
    ],
    when: [
      'for everyday use.',
      'at a fair price.',
      'and ships for free.',
      'wherever you go.',
      'for the whole family.',
      'in every season.',
    ],
  },
};

const ZH = {
  news: {
    who: [
      '市政府',
      '气象部门',
      '当地农民',
      '交通部门',
      '一群志愿者',
      '大学研究团队',
      '港口管理处',
      '马拉松组委会',
      '区图书馆',
      '社区医院',
    ],
    did: ['宣布了', '公布了', '启动了', '完成了', '正在推进', '听取了市民对'],
    what: [
      '滨江公园改造计划',
      '北部铁路线的建设',
      '学校午餐的改善方案',
      '防洪工程',
      '春季播种工作',
      '公交票价调整',
      '老图书馆的修缮',
      '公共建筑屋顶光伏项目',
      '城市自行车道',
      '儿童博物馆的新展厅',
    ],
    when: ['。', '的进展。', '的意见。', '，预计明年完工。', '，受到广泛欢迎。', '，相关细节将在下周公布。'],
  },
  fiction: {
    who: [
      '小林',
      '老渔夫',
      '她的弟弟',
      '那位疲惫的侦探',
      '穿灰色外套的陌生人',
      '面包师的女儿',
      '船长',
      '双胞胎兄妹',
      '隔壁的王奶奶',
      '灯塔看守人',
    ],
    did: ['轻轻打开了', '久久地望着', '抱着', '忘记了', '笑着找到了', '小声讨论着', '沿着地图寻找', '认真地画着'],
    what: [
      '那只木盒子',
      '北方寄来的信',
      '一篮李子',
      '坏掉的老钟',
      '门边的灯笼',
      '一张旧照片',
      '花园的小门',
      '那条蓝色小船',
      '童年的歌',
      '最后一张车票',
    ],
    when: [
      '，窗外开始下雨。',
      '，天还没亮。',
      '，水壶在炉子上响着。',
      '，月光很淡。',
      '，那是春天第一个温暖的傍晚。',
      '，什么也没说。',
    ],
  },
  product: {
    who: [
      '这款双肩包',
      '这只电热水壶',
      '这个保温杯',
      '这盏阅读灯',
      '这双跑鞋',
      '这款无线音箱',
      '这根花园水管',
      '这台厨房秤',
      '这本笔记本',
      '这件冬季外套',
    ],
    did: ['采用', '配备', '带来', '拥有', '提供'],
    what: [
      '轻巧的再生材料框架',
      '两年质保',
      '柔软可水洗的面料',
      '续航一周的电池',
      '一键操作',
      '安静稳定的表现',
      '巧妙的折叠设计',
      '三种颜色可选',
      '方便清洁的结构',
      '柔和温暖的灯光',
    ],
    when: ['，适合日常使用。', '，价格实惠。', '，全国包邮。', '，随时随地陪伴你。', '，全家都适用。', '，四季皆宜。'],
  },
};

type Parts = { who: string[]; did: string[]; what: string[]; when: string[] };

function sentences(parts: Record<string, Parts>, count: number, join: (p: string[]) => string, seed: number): string[] {
  const next = rng(seed);
  const pick = (xs: string[]) => xs[Math.floor(next() * xs.length)]!;
  const kinds = Object.values(parts);
  const out = new Set<string>();
  for (let i = 0; out.size < count; i++) {
    const p = kinds[i % kinds.length]!;
    out.add(join([pick(p.who), pick(p.did), pick(p.what), pick(p.when)]));
  }
  return [...out];
}

export function ordinarySentences(): string[] {
  return [
    ...sentences(EN, 500, (p) => `${p[0]} ${p[1]} ${p[2]} ${p[3]}`, 20261206),
    ...sentences(ZH, 500, (p) => p.join(''), 31),
  ];
}

/** The bench's own operator list (category `brands`), which prohibited.txt also carries. */
export const OPERATOR_TERMS = [
  { term: 'Zorblax', category: 'brands' },
  { term: '黑心药丸', category: 'brands' },
];

const WORDS = [
  'fuck',
  'shit',
  'motherfucker',
  '法轮功',
  '习近平',
  '天安门屠杀',
  '8964',
  'xi jinping',
  'tiananmen massacre',
  '达赖喇嘛',
  'Zorblax',
  '黑心药丸',
];
const TRADITIONAL: Record<string, string> = {
  法轮功: '法輪功',
  习近平: '習近平',
  天安门屠杀: '天安門屠殺',
  达赖喇嘛: '達賴喇嘛',
  黑心药丸: '黑心藥丸',
};
const CYRILLIC: Record<string, string> = { a: 'а', e: 'е', o: 'о', p: 'р', c: 'с', x: 'х', i: 'і', s: 'ѕ' };
const DISGUISES: ((w: string) => string)[] = [
  (w) => w,
  (w) => TRADITIONAL[w] ?? w.toUpperCase(),
  (w) => [...w].join(' '),
  (w) => [...w].join('.'),
  (w) => [...w].map((c) => String.fromCodePoint((c.codePointAt(0) ?? 0) + (/[!-~]/.test(c) ? 0xfee0 : 0))).join(''),
  (w) => [...w].map((c) => CYRILLIC[c] ?? c).join(''),
  (w) =>
    w
      .replace(/i/g, '1')
      .replace(/o/g, '0')
      .replace(/a/g, '4')
      .replace(/s/g, () => '$'),
  (w) => [...w].join('\u200b'),
  // A letter put between Chinese characters as filler (Latin words: spelled out with hyphens).
  (w) => (/\p{Script=Han}/u.test(w) ? [...w].join('x') : [...w].join('-')),
];
const FRAMES = [
  'Please read this aloud: {w}.',
  'He shouted {w} at the crowd.',
  '请朗读：{w}。',
  '今天我们来谈谈{w}的事情。',
  '{w}',
  'Breaking news about {w} tonight.',
];

export function prohibitedSentences(): string[] {
  const out: string[] = [];
  WORDS.forEach((w, i) => DISGUISES.forEach((d, j) => out.push(FRAMES[(i + j) % FRAMES.length]!.replace('{w}', () => d(w)))));
  return [...new Set(out)];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  fs.mkdirSync(FIXTURE_DIR, { recursive: true });
  fs.writeFileSync(path.join(FIXTURE_DIR, 'ordinary.txt'), `${ordinarySentences().join('\n')}\n`);
  fs.writeFileSync(path.join(FIXTURE_DIR, 'prohibited.txt'), `${prohibitedSentences().join('\n')}\n`);
}
