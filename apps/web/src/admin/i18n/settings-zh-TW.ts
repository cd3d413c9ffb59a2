import type { settingsEn } from './settings-en';

type Widen<T> = { readonly [K in keyof T]: T[K] extends string ? string : Widen<T[K]> };

/** 設定頁的繁體中文文案。 */
export const settingsZhTW: Widen<typeof settingsEn> = {
  title: '設定',
  body: '在此變更的設定幾秒內對所有程序生效，無需重新啟動。每個值都依伺服器啟動時的規則檢查；在此設定的值優先於同名環境變數，未在此變更的設定仍取環境變數的值。',
  groups: { credits: '試用額度', limits: '頻率限制', label: '顯式 AI 標示', signup: '註冊', moderation: '內容審核', sms: '簡訊' },
  keys: {
    ANONYMOUS_TRIAL_CREDITS: '訪客試用帳戶的額度',
    FREE_PLAN_CREDITS: '註冊時免費版的額度',
    TRIAL_GRANTS_PER_IP_DAY: '每個位址每天的試用發放次數',
    PLAN_GRANTS_PER_IP_DAY: '每個位址每天的免費版發放次數',
    ACCOUNT_LIMIT_PER_IP_HOUR: '每個位址每小時新建帳戶數',
    CODE_LIMIT_PER_IP_HOUR: '每個位址每小時郵件驗證碼數',
    CODE_LIMIT_PER_EMAIL_DAY: '每個信箱每天郵件驗證碼數',
    SIGN_IN_LIMIT_PER_IP_MINUTE: '每個位址每分鐘登入嘗試次數',
    VERIFY_PER_MINUTE: '每個位址每分鐘音訊檢測次數',
    AI_LABEL_EXPLICIT: '可聽標示',
    AI_LABEL_POSITION: '位置',
    SIGNUP_OPEN: '允許新使用者註冊',
    MODERATION_KEEP_DAYS: '被拒文字保留天數',
    VOICE_RETENTION_DAYS: '已刪除複製聲音的樣本與授權紀錄保留天數',
    MODERATION_FAIL_SYNTHESIS: '審核服務無回應時：語音合成',
    MODERATION_FAIL_DESIGN: '審核服務無回應時：複製與設計',
    REAL_NAME: '實名使用者',
    SMS_COUNTRIES: '可接收驗證碼的國家或地區（ISO 代碼，逗號分隔；* 為全部）',
    SMS_LIMIT_PER_IP_HOUR: '每個位址每小時簡訊數',
    SMS_FREE_PER_IP_DAY: '每個位址每天免工作量證明的驗證碼數',
    SMS_DAILY_CAP: '全站每天簡訊總數',
  },
  labelMode: { off: '關閉', rhythm: '節奏提示音', speech: '語音提示' },
  labelPosition: { start: '開頭', end: '結尾' },
  failMode: { open: '放行（記錄日誌）', closed: '拒絕' },

  realName: { off: '關閉', phone: '須綁定已驗證的手機號碼（複製、設計聲音、API 金鑰、購買）' },
  everyCountry: '全部國家或地區',
  starting: '啟動時：{{value}}',
  changed: '已在主控台變更',
  on: '開放',
  off: '關閉',
  save: '儲存變更',
  reset: '捨棄變更',
  conflict: '在你開啟後已有人修改了這些設定：已重新載入為目前的值，請重新修改。',
  saved: '設定已儲存：幾秒內在所有程序生效',
  nothing: '沒有變更',
  version: '版本 {{version}}，變更於 {{at}}',
};
