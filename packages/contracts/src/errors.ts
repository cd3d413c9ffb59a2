/** The closed list of error codes of the HTTP contract, with their status and localized messages. */
export const ERROR_STATUS = {
  PARAMETERS_NEEDED: 400,
  VALIDATION_FAILED: 400,
  EMAIL_REQUIRED: 400,
  EMAIL_FORMAT: 406,
  CAPTCHA_INCORRECT: 403,
  AGREEMENT_REQUIRED: 400,
  SIGN_IN_FAILED: 400,
  CODE_COOLDOWN: 429,
  EMAIL_TAKEN: 409,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  SECOND_FACTOR_REQUIRED: 401,
  NOT_FOUND: 404,
  INSUFFICIENT_BALANCE: 402,
  KEY_LIMIT_REACHED: 402,
  TEXT_TOO_LONG: 422,
  LANGUAGE_UNSUPPORTED: 422,
  MIX_LIMIT: 422,
  FILE_TOO_LARGE: 413,
  UNSUPPORTED_FILE_TYPE: 415,
  AUDIO_TOO_SHORT: 422,
  AUDIO_TOO_LONG: 422,
  SENSITIVE_WORDS: 422,
  PREVIEW_REQUIRED: 409,
  VOICE_LOCKED: 409,
  PAYMENT_METHOD_UNAVAILABLE: 422,
  ORDER_NOT_PAYABLE: 409,
  CODE_NOT_REDEEMABLE: 409,
  CONTENT_REFUSED: 422,
  RATE_LIMITED: 429,
  ACCOUNT_DISABLED: 403,
  VOICE_PROTECTED: 422,
  PHONE_FORMAT: 406,
  PHONE_TAKEN: 409,
  REAL_NAME_REQUIRED: 403,
  INTERNAL: 500,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;
export const ERROR_CODES = Object.keys(ERROR_STATUS) as ErrorCode[];

export const MESSAGE_LOCALES = ['en', 'zh-CN', 'zh-TW'] as const;
export type MessageLocale = (typeof MESSAGE_LOCALES)[number];

/** Placeholders in braces ({seconds}, {field}, …) are filled from the error's params. */
type Catalogue = Record<ErrorCode, string>;

const en: Catalogue = {
  PARAMETERS_NEEDED: 'Parameters needed',
  VALIDATION_FAILED: 'Invalid value for {field}: {rule}',
  EMAIL_REQUIRED: 'Please enter email',
  EMAIL_FORMAT: 'The email format is incorrect, please re-enter',
  CAPTCHA_INCORRECT: 'Captcha is incorrect, please re-enter',
  AGREEMENT_REQUIRED: 'Please agree to the agreement',
  SIGN_IN_FAILED: 'Sign in failure',
  CODE_COOLDOWN: 'Please wait {seconds} seconds before requesting another code',
  EMAIL_TAKEN: 'This email already belongs to another account',
  UNAUTHENTICATED: 'Please sign in first',
  FORBIDDEN: 'You are not allowed to do this',
  SECOND_FACTOR_REQUIRED: 'Confirm it is you with your second factor first',
  NOT_FOUND: 'Not found',
  INSUFFICIENT_BALANCE: 'Insufficient Balance',
  KEY_LIMIT_REACHED: "This API key's credit limit is spent",
  TEXT_TOO_LONG: 'Text exceeds the limit of {maxLength} characters',
  LANGUAGE_UNSUPPORTED: 'This voice does not support the input text language',
  MIX_LIMIT: 'At most 3 voices can be mixed',
  FILE_TOO_LARGE: 'The file is too large (limit {limit})',
  UNSUPPORTED_FILE_TYPE: 'This file type is not supported',
  AUDIO_TOO_SHORT: 'The sample must last 10 s to 5 min; this one is too short',
  AUDIO_TOO_LONG: 'The sample must last 10 s to 5 min; this one is too long',
  SENSITIVE_WORDS: 'The text contains sensitive words, please change it',
  PREVIEW_REQUIRED: 'A voice is activated from a preview; create a preview first',
  VOICE_LOCKED: "An activated voice's prompt or material cannot change",
  PAYMENT_METHOD_UNAVAILABLE: 'Please try another payment method!',
  ORDER_NOT_PAYABLE: 'This order can no longer be paid',
  CODE_NOT_REDEEMABLE: 'This code cannot be redeemed: it is unknown, used up, expired or revoked',
  CONTENT_REFUSED: 'This text cannot be spoken on this service; nothing was charged',
  RATE_LIMITED: 'Too many requests, please try again in {seconds} seconds',
  ACCOUNT_DISABLED: 'This account was disabled by the operator; please contact support',
  VOICE_PROTECTED: 'This sample matches a protected voice and cannot be cloned',
  PHONE_FORMAT: 'The phone number format is incorrect, please re-enter',
  PHONE_TAKEN: 'This phone number already belongs to another account',
  REAL_NAME_REQUIRED: 'This action needs a verified phone number on the account; bind one in your profile',
  INTERNAL: 'Something went wrong, please try again later',
};

const zhCN: Catalogue = {
  PARAMETERS_NEEDED: '缺少参数',
  VALIDATION_FAILED: '{field} 的值无效：{rule}',
  EMAIL_REQUIRED: '请输入邮箱',
  EMAIL_FORMAT: '邮箱格式不正确，请重新输入',
  CAPTCHA_INCORRECT: '验证码不正确，请重新输入',
  AGREEMENT_REQUIRED: '请同意用户协议',
  SIGN_IN_FAILED: '登录失败',
  CODE_COOLDOWN: '请等待 {seconds} 秒后再获取验证码',
  EMAIL_TAKEN: '该邮箱已属于其他账户',
  UNAUTHENTICATED: '请先登录',
  FORBIDDEN: '无权执行此操作',
  SECOND_FACTOR_REQUIRED: '请先通过第二重验证',
  NOT_FOUND: '未找到',
  INSUFFICIENT_BALANCE: '余额不足',
  KEY_LIMIT_REACHED: '该 API 密钥的额度已用完',
  TEXT_TOO_LONG: '文本超过 {maxLength} 个字符的限制',
  LANGUAGE_UNSUPPORTED: '该声音不支持输入文本的语言',
  MIX_LIMIT: '最多只能混合 3 个声音',
  FILE_TOO_LARGE: '文件过大（上限 {limit}）',
  UNSUPPORTED_FILE_TYPE: '不支持该文件类型',
  AUDIO_TOO_SHORT: '样本时长须在 10 秒到 5 分钟之间，当前样本过短',
  AUDIO_TOO_LONG: '样本时长须在 10 秒到 5 分钟之间，当前样本过长',
  SENSITIVE_WORDS: '内容包含敏感词，请修改',
  PREVIEW_REQUIRED: '声音须从试听版本激活，请先生成试听',
  VOICE_LOCKED: '已激活声音的描述或素材不能修改',
  PAYMENT_METHOD_UNAVAILABLE: '请尝试其他支付方式！',
  ORDER_NOT_PAYABLE: '该订单已无法支付',
  CODE_NOT_REDEEMABLE: '该兑换码无法使用：不存在、已用完、已过期或已作废',
  CONTENT_REFUSED: '该内容无法在本服务合成，未扣除任何额度',
  RATE_LIMITED: '请求过于频繁，请 {seconds} 秒后重试',
  ACCOUNT_DISABLED: '该账户已被运营方停用，请联系客服',
  VOICE_PROTECTED: '该样本与受保护的声音相符，不能克隆',
  PHONE_FORMAT: '手机号格式不正确，请重新输入',
  PHONE_TAKEN: '该手机号已属于其他账户',
  REAL_NAME_REQUIRED: '根据实名要求，此操作需要账户绑定已验证的手机号，请在个人资料中绑定',
  INTERNAL: '出了点问题，请稍后再试',
};

const zhTW: Catalogue = {
  PARAMETERS_NEEDED: '缺少參數',
  VALIDATION_FAILED: '{field} 的值無效：{rule}',
  EMAIL_REQUIRED: '請輸入電子郵件',
  EMAIL_FORMAT: '電子郵件格式不正確，請重新輸入',
  CAPTCHA_INCORRECT: '驗證碼不正確，請重新輸入',
  AGREEMENT_REQUIRED: '請同意使用者協議',
  SIGN_IN_FAILED: '登入失敗',
  CODE_COOLDOWN: '請等待 {seconds} 秒後再取得驗證碼',
  EMAIL_TAKEN: '此電子郵件已屬於其他帳戶',
  UNAUTHENTICATED: '請先登入',
  FORBIDDEN: '無權執行此操作',
  SECOND_FACTOR_REQUIRED: '請先通過第二重驗證',
  NOT_FOUND: '找不到',
  INSUFFICIENT_BALANCE: '餘額不足',
  KEY_LIMIT_REACHED: '此 API 金鑰的額度已用完',
  TEXT_TOO_LONG: '文字超過 {maxLength} 個字元的限制',
  LANGUAGE_UNSUPPORTED: '此聲音不支援輸入文字的語言',
  MIX_LIMIT: '最多只能混合 3 個聲音',
  FILE_TOO_LARGE: '檔案過大（上限 {limit}）',
  UNSUPPORTED_FILE_TYPE: '不支援此檔案類型',
  AUDIO_TOO_SHORT: '樣本長度須在 10 秒到 5 分鐘之間，目前樣本過短',
  AUDIO_TOO_LONG: '樣本長度須在 10 秒到 5 分鐘之間，目前樣本過長',
  SENSITIVE_WORDS: '內容包含敏感詞，請修改',
  PREVIEW_REQUIRED: '聲音須從試聽版本啟用，請先產生試聽',
  VOICE_LOCKED: '已啟用聲音的描述或素材不能修改',
  PAYMENT_METHOD_UNAVAILABLE: '請嘗試其他付款方式！',
  ORDER_NOT_PAYABLE: '此訂單已無法付款',
  CODE_NOT_REDEEMABLE: '此兌換碼無法使用：不存在、已用完、已過期或已作廢',
  CONTENT_REFUSED: '此內容無法在本服務合成，未扣除任何額度',
  RATE_LIMITED: '請求過於頻繁，請 {seconds} 秒後重試',
  ACCOUNT_DISABLED: '此帳戶已被營運方停用，請聯絡客服',
  VOICE_PROTECTED: '此樣本與受保護的聲音相符，不能複製',
  PHONE_FORMAT: '手機號碼格式不正確，請重新輸入',
  PHONE_TAKEN: '此手機號碼已屬於其他帳戶',
  REAL_NAME_REQUIRED: '依實名要求，此操作需要帳戶綁定已驗證的手機號碼，請在個人資料中綁定',
  INTERNAL: '發生錯誤，請稍後再試',
};

export const ERROR_MESSAGES: Record<MessageLocale, Catalogue> = { en, 'zh-CN': zhCN, 'zh-TW': zhTW };

export function formatMessage(template: string, params: Record<string, string | number> = {}): string {
  return template.replace(/\{(\w+)\}/g, (whole, key: string) => (Object.hasOwn(params, key) ? String(params[key]) : whole));
}

/** The fixed rules VALIDATION_FAILED names, in Chinese; a rule not listed (a schema's own wording) is shown as written. */
const RULES = new Map<string, { 'zh-CN': string; 'zh-TW': string }>([
  ['must not contain NUL characters', { 'zh-CN': '不能包含 NUL 字符', 'zh-TW': '不能包含 NUL 字元' }],
  ['must not contain control characters', { 'zh-CN': '不能包含控制字符', 'zh-TW': '不能包含控制字元' }],
  ['must not be empty', { 'zh-CN': '不能为空', 'zh-TW': '不能為空' }],
  ['must be a product id from /products', { 'zh-CN': '须为 /products 中的商品编号', 'zh-TW': '須為 /products 中的商品編號' }],
  ['the free plan is not for sale', { 'zh-CN': '免费版无需购买', 'zh-TW': '免費版無需購買' }],
  ['must be a path or a URL of this site', { 'zh-CN': '须为本站的路径或网址', 'zh-TW': '須為本站的路徑或網址' }],
  ['must contain words', { 'zh-CN': '须包含文字', 'zh-TW': '須包含文字' }],
  ['must be valid JSON', { 'zh-CN': '须为有效的 JSON', 'zh-TW': '須為有效的 JSON' }],
  [
    'must be a language tag such as en or zh-CN',
    { 'zh-CN': '须为语言标记，如 en 或 zh-CN', 'zh-TW': '須為語言標記，如 en 或 zh-CN' },
  ],
  ['too many multipart fields', { 'zh-CN': '表单字段过多', 'zh-TW': '表單欄位過多' }],
  ['one file at most', { 'zh-CN': '最多一个文件', 'zh-TW': '最多一個檔案' }],
  ['field name not allowed', { 'zh-CN': '不允许的字段名', 'zh-TW': '不允許的欄位名稱' }],
  ['multipart needs a boundary', { 'zh-CN': 'multipart 请求须带 boundary', 'zh-TW': 'multipart 請求須帶 boundary' }],
  ['malformed multipart body', { 'zh-CN': 'multipart 请求体格式错误', 'zh-TW': 'multipart 請求內容格式錯誤' }],
  ['malformed HTTP request', { 'zh-CN': 'HTTP 请求格式错误', 'zh-TW': 'HTTP 請求格式錯誤' }],
  ['request headers are too large', { 'zh-CN': '请求头过大', 'zh-TW': '請求標頭過大' }],
  ['the request took too long to arrive', { 'zh-CN': '请求发送超时', 'zh-TW': '請求傳送逾時' }],
  ['the request headers took too long to arrive', { 'zh-CN': '请求头发送超时', 'zh-TW': '請求標頭傳送逾時' }],
  ['numbers of this country are not served', { 'zh-CN': '暂不支持该国家或地区的号码', 'zh-TW': '暫不支援該國家或地區的號碼' }],
  ['must be true', { 'zh-CN': '须为 true', 'zh-TW': '須為 true' }],
  ['unknown model', { 'zh-CN': '未知的模型', 'zh-TW': '未知的模型' }],
  ['must be a mixing model', { 'zh-CN': '须为可混合的模型', 'zh-TW': '須為可混合的模型' }],
  ['voices of the chosen model', { 'zh-CN': '须为所选模型的声音', 'zh-TW': '須為所選模型的聲音' }],
  ['distinct models', { 'zh-CN': '模型不能重复', 'zh-TW': '模型不能重複' }],
  ['only for prompt or clone voices', { 'zh-CN': '仅适用于描述生成或克隆的声音', 'zh-TW': '僅適用於描述生成或複製的聲音' }],
  ['mixable model', { 'zh-CN': '须为可混合的模型', 'zh-TW': '須為可混合的模型' }],
  ['one model', { 'zh-CN': '混合的声音须属于同一模型', 'zh-TW': '混合的聲音須屬於同一模型' }],
  ['> 0', { 'zh-CN': '须大于 0', 'zh-TW': '須大於 0' }],
  ['at least 1', { 'zh-CN': '至少 1 个', 'zh-TW': '至少 1 個' }],
  ['must open the stream with " " first', { 'zh-CN': '须先发送开场消息 " "', 'zh-TW': '須先傳送開場訊息 " "' }],
  ['must be a WebSocket upgrade', { 'zh-CN': '须为 WebSocket 升级请求', 'zh-TW': '須為 WebSocket 升級請求' }],
  ['this model needs what the sample says', { 'zh-CN': '该模型需要样本中所说的文字', 'zh-TW': '該模型需要樣本中所說的文字' }],
  [
    'a PLS file may not declare a DOCTYPE or entities',
    { 'zh-CN': 'PLS 文件不能声明 DOCTYPE 或实体', 'zh-TW': 'PLS 檔案不能宣告 DOCTYPE 或實體' },
  ],
  ['not well-formed XML', { 'zh-CN': '不是格式正确的 XML', 'zh-TW': '不是格式正確的 XML' }],
  ['the root element must be <lexicon>', { 'zh-CN': '根元素须为 <lexicon>', 'zh-TW': '根元素須為 <lexicon>' }],
  [
    'an SSML document may not declare a DOCTYPE or entities',
    { 'zh-CN': 'SSML 文档不能声明 DOCTYPE 或实体', 'zh-TW': 'SSML 文件不能宣告 DOCTYPE 或實體' },
  ],
  ['the lexicon has no lexeme', { 'zh-CN': '词典中没有任何 lexeme', 'zh-TW': '詞典中沒有任何 lexeme' }],
  ['the model is installed already', { 'zh-CN': '该模型已安装', 'zh-TW': '該模型已安裝' }],
  ['the model is being installed', { 'zh-CN': '该模型正在安装', 'zh-TW': '該模型正在安裝' }],
  ['must be an http:// or https:// URL', { 'zh-CN': '须为 http:// 或 https:// 网址', 'zh-TW': '須為 http:// 或 https:// 網址' }], // Studio projects (apps/server/src/studio).
  ['not a valid EPUB file', { 'zh-CN': '不是有效的 EPUB 文件', 'zh-TW': '不是有效的 EPUB 檔案' }],
  ['not a valid DOCX file', { 'zh-CN': '不是有效的 DOCX 文件', 'zh-TW': '不是有效的 DOCX 檔案' }],
  [
    'not a text file (UTF-8, UTF-16 or GB18030)',
    { 'zh-CN': '不是文本文件（UTF-8、UTF-16 或 GB18030）', 'zh-TW': '不是文字檔（UTF-8、UTF-16 或 GB18030）' },
  ],
  ['the document has no text', { 'zh-CN': '文档中没有文字', 'zh-TW': '文件中沒有文字' }],
  ['must be a voice you can use', { 'zh-CN': '须为你可以使用的声音', 'zh-TW': '須為你可以使用的聲音' }],
  [
    'not supported: send from_document or text',
    { 'zh-CN': '不支持：请发送 from_document 或 text', 'zh-TW': '不支援：請傳送 from_document 或 text' },
  ],
  [
    'send from_document or text, not both',
    { 'zh-CN': '只能发送 from_document 或 text 之一', 'zh-TW': '只能傳送 from_document 或 text 其中之一' },
  ],
]);

/** The rules the server words from a schema's constraint (`ruleOf` in the server), with their number or list. */
type Worded = { re: RegExp; 'zh-CN': string; 'zh-TW': string };

/**
 * Why an XML document (SSML, a PLS file) is not well-formed, as the server words the validator's reason: what is wrong,
 * naming the tag; a reason not listed stays as it is.
 */
const XML_PROBLEMS: Worded[] = [
  {
    re: /^the <(.+)> tag opened at line (\d+), column (\d+) is not closed before <\/(.+)>$/,
    'zh-CN': '第 $2 行第 $3 列的 <$1> 标签在 </$4> 之前没有关闭',
    'zh-TW': '第 $2 行第 $3 欄的 <$1> 標籤在 </$4> 之前沒有關閉',
  },
  { re: /^the <(.+)> tag is not closed$/, 'zh-CN': '<$1> 标签没有关闭', 'zh-TW': '<$1> 標籤沒有關閉' },
  { re: /^some tags are not closed$/, 'zh-CN': '有标签没有关闭', 'zh-TW': '有標籤沒有關閉' },
  {
    re: /^the closing tag <\/(.+)> has no opening tag$/,
    'zh-CN': '结束标签 </$1> 没有对应的开始标签',
    'zh-TW': '結束標籤 </$1> 沒有對應的開始標籤',
  },
  { re: /^the closing tag <\/(.+)> is malformed$/, 'zh-CN': '结束标签 </$1> 格式不正确', 'zh-TW': '結束標籤 </$1> 格式不正確' },
  { re: /^the character "(.)" is not allowed here$/, 'zh-CN': '此处不能出现字符“$1”', 'zh-TW': '此處不能出現字元「$1」' },
  { re: /^a tag name must follow "<"$/, 'zh-CN': '“<”后面须紧跟标签名', 'zh-TW': '「<」後面須緊跟標籤名稱' },
  { re: /^"(.+)" is not a valid tag name$/, 'zh-CN': '“$1”不是有效的标签名', 'zh-TW': '「$1」不是有效的標籤名稱' },
  { re: /^the attribute (.+) is repeated$/, 'zh-CN': '属性 $1 重复', 'zh-TW': '屬性 $1 重複' },
  { re: /^the attribute (.+) has no value$/, 'zh-CN': '属性 $1 没有值', 'zh-TW': '屬性 $1 沒有值' },
  { re: /^the attribute "(.+)" is malformed$/, 'zh-CN': '属性“$1”格式不正确', 'zh-TW': '屬性「$1」格式不正確' },
  { re: /^an attribute of <(.+)> has no closing quote$/, 'zh-CN': '<$1> 的属性缺少结束引号', 'zh-TW': '<$1> 的屬性缺少結束引號' },
  { re: /^there is content after the root element$/, 'zh-CN': '根元素之后还有内容', 'zh-TW': '根元素之後還有內容' },
  { re: /^the document has no element$/, 'zh-CN': '文档中没有元素', 'zh-TW': '文件中沒有元素' },
  { re: /^the XML declaration must open the document$/, 'zh-CN': 'XML 声明须位于文档开头', 'zh-TW': 'XML 宣告須位於文件開頭' },
  { re: /^the markup is malformed$/, 'zh-CN': '标记格式不正确', 'zh-TW': '標記格式不正確' },
];

const RULE_PATTERNS: (Worded & { reason?: number })[] = [
  {
    re: /^pronunciation rules may add at most (\d+) characters to it \(these add (\d+)\)$/,
    'zh-CN': '发音规则最多只能为其增加 $1 个字符（这些规则增加了 $2 个）',
    'zh-TW': '發音規則最多只能為其增加 $1 個字元（這些規則增加了 $2 個）',
  },
  // SSML: each error names where it is (line and column).
  {
    re: /^not well-formed SSML at line (\d+), column (\d+): (.*)$/,
    'zh-CN': 'SSML 格式不正确（第 $1 行第 $2 列）：$3',
    'zh-TW': 'SSML 格式不正確（第 $1 行第 $2 欄）：$3',
    reason: 3,
  },
  {
    re: /^not well-formed XML at line (\d+), column (\d+): (.*)$/,
    'zh-CN': 'XML 格式不正确（第 $1 行第 $2 列）：$3',
    'zh-TW': 'XML 格式不正確（第 $1 行第 $2 欄）：$3',
    reason: 3,
  },
  {
    re: /^unsupported SSML tag <(.+)> at line (\d+), column (\d+)$/,
    'zh-CN': '不支持的 SSML 标签 <$1>（第 $2 行第 $3 列）',
    'zh-TW': '不支援的 SSML 標籤 <$1>（第 $2 行第 $3 欄）',
  },
  {
    re: /^bad value "(.*)" for (\S+) of <(.+)> at line (\d+), column (\d+)$/,
    'zh-CN': '<$3> 的 $2 值“$1”无效（第 $4 行第 $5 列）',
    'zh-TW': '<$3> 的 $2 值「$1」無效（第 $4 行第 $5 欄）',
  },
  {
    re: /^<(.+)> needs (\S+) at line (\d+), column (\d+)$/,
    'zh-CN': '<$1> 须有 $2 属性（第 $3 行第 $4 列）',
    'zh-TW': '<$1> 須有 $2 屬性（第 $3 行第 $4 欄）',
  },
  {
    re: /^<(.+)> takes text only \(<(.+)> at line (\d+), column (\d+)\)$/,
    'zh-CN': '<$1> 只能包含文字（<$2>，第 $3 行第 $4 列）',
    'zh-TW': '<$1> 只能包含文字（<$2>，第 $3 行第 $4 欄）',
  },
  {
    re: /^the root element must be <speak> \((.*) at line (\d+), column (\d+)\)$/,
    'zh-CN': '根元素须为 <speak>（$1，第 $2 行第 $3 列）',
    'zh-TW': '根元素須為 <speak>（$1，第 $2 行第 $3 欄）',
  },
  {
    re: /^undeclared entity (\S+) at line (\d+), column (\d+)$/,
    'zh-CN': '未声明的实体 $1（第 $2 行第 $3 列）',
    'zh-TW': '未宣告的實體 $1（第 $2 行第 $3 欄）',
  },
  {
    re: /^bad character reference (\S+) at line (\d+), column (\d+)$/,
    'zh-CN': '无效的字符引用 $1（第 $2 行第 $3 列）',
    'zh-TW': '無效的字元參照 $1（第 $2 行第 $3 欄）',
  },
  {
    re: /^alphabet "(.*)" is not ipa, x-sampa or cmu-arpabet at line (\d+), column (\d+)$/,
    'zh-CN': '音标“$1”不是 ipa、x-sampa 或 cmu-arpabet（第 $2 行第 $3 列）',
    'zh-TW': '音標「$1」不是 ipa、x-sampa 或 cmu-arpabet（第 $2 行第 $3 欄）',
  },
  {
    re: /^unknown X-SAMPA symbols (.+) in ph of <phoneme> at line (\d+), column (\d+)$/,
    'zh-CN': '<phoneme> 的 ph 含有 X-SAMPA 中没有的符号 $1（第 $2 行第 $3 列）',
    'zh-TW': '<phoneme> 的 ph 含有 X-SAMPA 中沒有的符號 $1（第 $2 行第 $3 欄）',
  },
  {
    re: /^pauses may last at most (\S+) s in all for (\d+) characters \((\S+) s and (\S+) s per character, (\S+) s at most\); these last (\S+) s$/,
    'zh-CN': '停顿总长最多 $1 秒（$2 个字符：$3 秒，另加每个字符 $4 秒，最多 $5 秒）；这些停顿共 $6 秒',
    'zh-TW': '停頓總長最多 $1 秒（$2 個字元：$3 秒，另加每個字元 $4 秒，最多 $5 秒）；這些停頓共 $6 秒',
  },
  { re: /^must be at least (.+) characters long$/, 'zh-CN': '至少须有 $1 个字符', 'zh-TW': '至少須有 $1 個字元' },
  { re: /^must be at most (.+) characters long$/, 'zh-CN': '最多 $1 个字符', 'zh-TW': '最多 $1 個字元' },
  { re: /^must have at least (.+) items$/, 'zh-CN': '至少须有 $1 项', 'zh-TW': '至少須有 $1 項' },
  { re: /^must have at most (.+) items$/, 'zh-CN': '最多 $1 项', 'zh-TW': '最多 $1 項' },
  { re: /^must be at least (.+)$/, 'zh-CN': '须不小于 $1', 'zh-TW': '須不小於 $1' },
  { re: /^must be at most (.+)$/, 'zh-CN': '须不大于 $1', 'zh-TW': '須不大於 $1' },
  { re: /^must be greater than (.+)$/, 'zh-CN': '须大于 $1', 'zh-TW': '須大於 $1' },
  { re: /^must be less than (.+)$/, 'zh-CN': '须小于 $1', 'zh-TW': '須小於 $1' },
  { re: /^must be of type (.+)$/, 'zh-CN': '类型须为 $1', 'zh-TW': '類型須為 $1' },
  { re: /^must be one of: (.*)$/, 'zh-CN': '须为以下之一：$1', 'zh-TW': '須為以下之一：$1' },
  { re: /^must be a valid (.+)$/, 'zh-CN': '须为有效的 $1', 'zh-TW': '須為有效的 $1' },
  { re: /^must be a multiple of (.+)$/, 'zh-CN': '须为 $1 的倍数', 'zh-TW': '須為 $1 的倍數' },
  { re: /^has unknown fields: (.*)$/, 'zh-CN': '包含未知字段：$1', 'zh-TW': '包含未知欄位：$1' },
  { re: /^has an invalid format$/, 'zh-CN': '格式不正确', 'zh-TW': '格式不正確' },
  { re: /^no text for (.+) seconds$/, 'zh-CN': '$1 秒内未收到文字', 'zh-TW': '$1 秒內未收到文字' },
  { re: /^has an invalid value$/, 'zh-CN': '值不正确', 'zh-TW': '值不正確' },
  { re: /^not well-formed XML \((.*)\)$/, 'zh-CN': '不是格式正确的 XML（$1）', 'zh-TW': '不是格式正確的 XML（$1）' },
  { re: /^lexeme (\d+) has no grapheme$/, 'zh-CN': '第 $1 个 lexeme 没有 grapheme', 'zh-TW': '第 $1 個 lexeme 沒有 grapheme' },
  {
    re: /^lexeme (\d+) has neither a phoneme nor an alias$/,
    'zh-CN': '第 $1 个 lexeme 既没有 phoneme 也没有 alias',
    'zh-TW': '第 $1 個 lexeme 既沒有 phoneme 也沒有 alias',
  },
  {
    re: /^lexeme (\d+): must not contain control characters$/,
    'zh-CN': '第 $1 个 lexeme：不能包含控制字符',
    'zh-TW': '第 $1 個 lexeme：不能包含控制字元',
  },
  {
    re: /^lexeme (\d+): at most (\d+) characters a string$/,
    'zh-CN': '第 $1 个 lexeme：每个字符串最多 $2 个字符',
    'zh-TW': '第 $1 個 lexeme：每個字串最多 $2 個字元',
  },
  { re: /^at most (\d+) rules$/, 'zh-CN': '最多 $1 条规则', 'zh-TW': '最多 $1 條規則' },
  { re: /^at most (\d+) chapters$/, 'zh-CN': '最多 $1 个章节', 'zh-TW': '最多 $1 個章節' },
  { re: /^at most (\d+) paragraphs$/, 'zh-CN': '最多 $1 个段落', 'zh-TW': '最多 $1 個段落' },
  { re: /^at most (\d+) speakers$/, 'zh-CN': '最多 $1 个说话人', 'zh-TW': '最多 $1 位說話者' },
  { re: /^at most (\d+) files in the archive$/, 'zh-CN': '压缩包中最多 $1 个文件', 'zh-TW': '壓縮檔中最多 $1 個檔案' },
  { re: /^the archive expands past (\S+) MB$/, 'zh-CN': '压缩包解压后超过 $1 MB', 'zh-TW': '壓縮檔解壓後超過 $1 MB' },
  { re: /^at most (\d+) distinct voices$/, 'zh-CN': '最多 $1 个不同的声音', 'zh-TW': '最多 $1 個不同的聲音' },
  { re: /^at most (\d+) dictionaries$/, 'zh-CN': '最多 $1 个词典', 'zh-TW': '最多 $1 個詞典' },
  { re: /^undeclared entity (.+)$/, 'zh-CN': '未声明的实体 $1', 'zh-TW': '未宣告的實體 $1' },
  { re: /^bad character reference (.+)$/, 'zh-CN': '无效的字符引用 $1', 'zh-TW': '無效的字元參照 $1' },
  {
    re: /^alphabet "(.*)" is not ipa, x-sampa or cmu-arpabet$/,
    'zh-CN': '音标字母表 "$1" 不是 ipa、x-sampa 或 cmu-arpabet',
    'zh-TW': '音標字母表 "$1" 不是 ipa、x-sampa 或 cmu-arpabet',
  },
  {
    re: /^lexeme (\d+): unknown X-SAMPA symbols (.+)$/,
    'zh-CN': '第 $1 个 lexeme：含有 X-SAMPA 中没有的符号 $2',
    'zh-TW': '第 $1 個 lexeme：含有 X-SAMPA 中沒有的符號 $2',
  },
];

/** True when the catalogue translates this rule (a fixed rule or a worded constraint). */
export function isKnownRule(rule: string): boolean {
  return RULES.has(rule) || RULE_PATTERNS.some((p) => p.re.test(rule));
}

function translateRule(rule: string, locale: 'zh-CN' | 'zh-TW'): string | undefined {
  const fixed = RULES.get(rule)?.[locale];
  if (fixed) return fixed;
  const pattern = RULE_PATTERNS.find((p) => p.re.test(rule));
  if (!pattern) return undefined;
  const { reason } = pattern;
  if (reason === undefined) return rule.replace(pattern.re, pattern[locale]);
  // The parser's reason, worded too.
  return rule.replace(pattern.re, (...m: string[]) =>
    pattern[locale].replace(/\$(\d)/g, (_, i: string) => {
      const part = m[Number(i)] ?? '';
      if (Number(i) !== reason) return part;
      const problem = XML_PROBLEMS.find((p) => p.re.test(part));
      return problem ? part.replace(problem.re, problem[locale]) : part;
    }),
  );
}

/**
 * The errors of an SSML document or a PLS file are about what the user wrote, where: their message is the rule alone,
 * in the reader's language, with no field name ("text", "file") before it.
 */
const DOCUMENT_RULE =
  /^(?:pauses may last at most |not well-formed (?:SSML|XML)(?: at line|$)|unsupported SSML tag <|bad value ".*" for \S+ of <|<.+> (?:needs|takes text only)|the root element must be <|undeclared entity |bad character reference |alphabet ".*" is not|unknown X-SAMPA symbols|an SSML document may not|a PLS file may not|the lexicon has no lexeme|lexeme \d+)/;

/**
 * Why FORBIDDEN was answered, when the plain "not allowed" would leave the user guessing: the error's
 * `reason` param picks one of these (anything else keeps the code's own message).
 */
export const FORBIDDEN_REASONS = ['own_voices', 'api_access', 'signup_closed', 'licence_confirm'] as const;
export type ForbiddenReason = (typeof FORBIDDEN_REASONS)[number];
export const REASON_MESSAGES = new Map<string, Record<MessageLocale, string>>([
  [
    // A write made from a copy older than what is stored (If-Match names an older version): answered 409.
    'VALIDATION_FAILED:stale',
    {
      en: 'Someone changed this since you opened it: reload it and make your change again',
      'zh-CN': '在你打开之后已有人修改了这里的内容：请重新加载后再修改',
      'zh-TW': '在你開啟之後已有人修改了這裡的內容：請重新載入後再修改',
    },
  ],
  [
    'FORBIDDEN:own_voices',
    {
      en: 'Your plan allows {limit} own voices; delete one or upgrade your plan to save another',
      'zh-CN': '你的套餐最多可保存 {limit} 个自己的声音；请删除一个或升级套餐后再保存',
      'zh-TW': '你的方案最多可儲存 {limit} 個自己的聲音；請刪除一個或升級方案後再儲存',
    },
  ],
  [
    // A presented API key that matches none: unknown, mistyped or deleted (a session's "sign in first" would mislead).
    'UNAUTHENTICATED:invalid_key',
    {
      en: 'This API key is not valid: it may have been deleted or mistyped',
      'zh-CN': '该 API 密钥无效：可能已被删除或输入有误',
      'zh-TW': '此 API 金鑰無效：可能已被刪除或輸入有誤',
    },
  ],
  [
    // A second-factor code (TOTP, recovery code or passkey) that does not pass.
    'SIGN_IN_FAILED:second_factor',
    {
      en: 'The code or passkey was not accepted; try again',
      'zh-CN': '验证码或通行密钥未通过，请重试',
      'zh-TW': '驗證碼或通行金鑰未通過，請重試',
    },
  ],
  [
    'FORBIDDEN:api_access',
    {
      en: 'Your plan does not include API access',
      'zh-CN': '你的套餐不包含 API 访问权限',
      'zh-TW': '你的方案不包含 API 存取權限',
    },
  ],
  [
    // The operator closed sign-up (the console's settings): existing accounts still sign in.
    'FORBIDDEN:signup_closed',
    {
      en: 'Sign-up is closed for now: only existing accounts can sign in',
      'zh-CN': '暂未开放注册：仅已有账户可以登录',
      'zh-TW': '暫未開放註冊：僅已有帳戶可以登入',
    },
  ],
  [
    // A model whose licence forbids commercial use: installed only when an owner confirms it.
    'FORBIDDEN:licence_confirm',
    {
      en: "This model's licence does not allow commercial use: only an owner can install it, after confirming",
      'zh-CN': '该模型的许可证不允许商业使用：只有所有者确认后才能安装',
      'zh-TW': '此模型的授權不允許商業使用：只有擁有者確認後才能安裝',
    },
  ],
]);

const NUMBER_FORMATS = new Map<MessageLocale, Intl.NumberFormat>();

/** Numbers in a message are written as the reader's locale writes them: "1,000", not "1000". */
function localizeNumbers(params: Record<string, string | number>, locale: MessageLocale): Record<string, string | number> {
  let format = NUMBER_FORMATS.get(locale);
  if (!format) NUMBER_FORMATS.set(locale, (format = new Intl.NumberFormat(locale)));
  const out: Record<string, string | number> = {};
  for (const [key, value] of Object.entries(params)) out[key] = typeof value === 'number' ? format.format(value) : value;
  return out;
}

export function errorMessage(code: ErrorCode, locale: MessageLocale, raw: Record<string, string | number> = {}): string {
  const params = localizeNumbers(raw, locale);
  const reasoned = typeof params.reason === 'string' ? REASON_MESSAGES.get(`${code}:${params.reason}`) : undefined;
  if (reasoned) return formatMessage(reasoned[locale], params);
  const rule = locale === 'en' || typeof params.rule !== 'string' ? undefined : translateRule(params.rule, locale);
  if (code === 'VALIDATION_FAILED' && typeof params.rule === 'string' && DOCUMENT_RULE.test(params.rule)) {
    const said = rule ?? params.rule;
    return locale === 'en' ? said.charAt(0).toUpperCase() + said.slice(1) : said;
  }
  return formatMessage(ERROR_MESSAGES[locale][code], rule ? { ...params, rule } : params);
}

function exactLocale(raw: string): MessageLocale | null {
  const tag = raw.toLowerCase();
  if (tag === 'en' || tag.startsWith('en-')) return 'en';
  if (tag === 'zh-cn' || tag === 'zh-sg' || tag === 'zh-hans' || tag.startsWith('zh-hans-')) return 'zh-CN';
  if (tag === 'zh-tw' || tag === 'zh-hk' || tag === 'zh-mo' || tag === 'zh-hant' || tag.startsWith('zh-hant-')) return 'zh-TW';
  return null;
}

/**
 * Picks a message locale: `lang` when it names one of the three (anything else means English, as the
 * contract says), else the Accept-Language entry with the highest weight that maps to one, else English.
 */
export function resolveMessageLocale(lang?: string | null, acceptLanguage?: string | null): MessageLocale {
  if (lang) return exactLocale(lang) ?? 'en';
  if (!acceptLanguage) return 'en';
  const ranked = acceptLanguage
    .split(',')
    .map((part, index) => {
      const [tag = '', ...params] = part.trim().split(';');
      const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
      const weight = q ? Number(q.slice(2)) : 1;
      return { tag: tag.trim(), weight: Number.isFinite(weight) ? weight : 0, index };
    })
    .filter((e) => e.tag && e.weight > 0)
    .sort((a, b) => b.weight - a.weight || a.index - b.index);
  for (const { tag } of ranked) {
    // A browser's bare `zh` means Chinese without a script; Simplified is the console's default.
    const locale = exactLocale(tag) ?? (tag.toLowerCase() === 'zh' ? 'zh-CN' : null);
    if (locale) return locale;
  }
  return 'en';
}
