import type { settingsEn } from './settings-en';

type Widen<T> = { readonly [K in keyof T]: T[K] extends string ? string : Widen<T[K]> };

/** 设置页的简体中文文案。 */
export const settingsZhCN: Widen<typeof settingsEn> = {
  title: '设置',
  body: '在此更改的设置几秒内对所有进程生效，无需重启。每个值都按服务器启动时的规则检查；在此设置的值优先于同名环境变量，未在此更改的设置仍取环境变量的值。',
  groups: { credits: '试用额度', limits: '频率限制', label: '显式 AI 标识', signup: '注册', moderation: '内容审核', sms: '短信' },
  keys: {
    ANONYMOUS_TRIAL_CREDITS: '访客试用账户的额度',
    FREE_PLAN_CREDITS: '注册时免费版的额度',
    TRIAL_GRANTS_PER_IP_DAY: '每个地址每天的试用发放次数',
    PLAN_GRANTS_PER_IP_DAY: '每个地址每天的免费版发放次数',
    ACCOUNT_LIMIT_PER_IP_HOUR: '每个地址每小时新建账户数',
    CODE_LIMIT_PER_IP_HOUR: '每个地址每小时邮件验证码数',
    CODE_LIMIT_PER_EMAIL_DAY: '每个邮箱每天邮件验证码数',
    SIGN_IN_LIMIT_PER_IP_MINUTE: '每个地址每分钟登录尝试次数',
    VERIFY_PER_MINUTE: '每个地址每分钟音频检测次数',
    AI_LABEL_EXPLICIT: '可听标识',
    AI_LABEL_POSITION: '位置',
    SIGNUP_OPEN: '允许新用户注册',
    MODERATION_KEEP_DAYS: '被拒文本保留天数',
    VOICE_RETENTION_DAYS: '已删除克隆声音的样本与授权记录保留天数',
    MODERATION_FAIL_SYNTHESIS: '审核服务无响应时：语音合成',
    MODERATION_FAIL_DESIGN: '审核服务无响应时：克隆与设计',
    REAL_NAME: '实名用户',
    SMS_COUNTRIES: '可接收验证码的国家或地区（ISO 代码，逗号分隔；* 为全部）',
    SMS_LIMIT_PER_IP_HOUR: '每个地址每小时短信数',
    SMS_FREE_PER_IP_DAY: '每个地址每天免工作量证明的验证码数',
    SMS_DAILY_CAP: '全站每天短信总数',
  },
  labelMode: { off: '关闭', rhythm: '节奏提示音', speech: '语音提示' },
  labelPosition: { start: '开头', end: '结尾' },
  failMode: { open: '放行（记录日志）', closed: '拒绝' },

  realName: { off: '关闭', phone: '须绑定已验证的手机号（克隆、设计声音、API 密钥、购买）' },
  everyCountry: '全部国家或地区',
  starting: '启动时：{{value}}',
  changed: '已在控制台更改',
  on: '开放',
  off: '关闭',
  save: '保存更改',
  reset: '放弃更改',
  conflict: '在你打开后已有人修改了这些设置：已重新加载为当前的值，请重新修改。',
  saved: '设置已保存：几秒内在所有进程生效',
  nothing: '没有更改',
  version: '版本 {{version}}，更改于 {{at}}',
};
