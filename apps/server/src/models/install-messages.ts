import type { MessageLocale } from '@polyvox/contracts';
import { InstallError, type InstallProblem } from './download.js';

/** An install's stopping reason as stored: its problem and values, told in the reader's language when read. */
interface StoredProblem {
  problem: InstallProblem;
  params: Record<string, string | number>;
}

const MESSAGES: Record<MessageLocale, Record<InstallProblem, string>> = {
  en: {
    unreachable: '{url} could not be reached',
    http_status: '{url} answered HTTP {status}',
    size_mismatch: '{name} is not the size the catalogue expects: refused and deleted',
    checksum_mismatch: "{name} does not match the catalogue's SHA-256: refused and deleted",
    interrupted: '{name}: the download was interrupted; install again to resume',
    not_in_catalogue: '{name} is not in the catalogue',
    already_installed: '{name} is already installed (remove it first)',
    not_runnable: '{name} is not a model the server can run: nothing was installed',
    unreadable_archive: 'The archive is not a readable .tar.bz2',
    unsafe_archive: 'The archive holds an unsafe entry ({entry}): refused',
    failed: 'The install failed: {detail}',
  },
  'zh-CN': {
    unreachable: '无法连接 {url}',
    http_status: '{url} 返回 HTTP {status}',
    size_mismatch: '{name} 的大小与目录不符：已拒绝并删除',
    checksum_mismatch: '{name} 的 SHA-256 与目录不符：已拒绝并删除',
    interrupted: '{name}：下载中断；再次安装即可续传',
    not_in_catalogue: '目录中没有 {name}',
    already_installed: '{name} 已安装（请先删除）',
    not_runnable: '{name} 不是服务器能运行的模型：未安装任何内容',
    unreadable_archive: '压缩包不是可读取的 .tar.bz2',
    unsafe_archive: '压缩包含有不安全的条目（{entry}）：已拒绝',
    failed: '安装失败：{detail}',
  },
  'zh-TW': {
    unreachable: '無法連線 {url}',
    http_status: '{url} 回應 HTTP {status}',
    size_mismatch: '{name} 的大小與目錄不符：已拒絕並刪除',
    checksum_mismatch: '{name} 的 SHA-256 與目錄不符：已拒絕並刪除',
    interrupted: '{name}：下載中斷；再次安裝即可續傳',
    not_in_catalogue: '目錄中沒有 {name}',
    already_installed: '{name} 已安裝（請先刪除）',
    not_runnable: '{name} 不是伺服器能執行的模型：未安裝任何內容',
    unreadable_archive: '壓縮檔不是可讀取的 .tar.bz2',
    unsafe_archive: '壓縮檔含有不安全的項目（{entry}）：已拒絕',
    failed: '安裝失敗：{detail}',
  },
};

const fill = (template: string, params: Record<string, string | number>) =>
  template.replace(/\{(\w+)\}/g, (whole, key: string) => (key in params ? String(params[key]) : whole));

/** What an install's failure is stored as: its problem and values (JSON), never a sentence in one language. */
export function storedProblem(error: unknown): string {
  const stored: StoredProblem =
    error instanceof InstallError
      ? { problem: error.problem, params: error.problem === 'failed' ? { detail: error.message } : error.params }
      : { problem: 'failed', params: { detail: error instanceof Error ? error.message : String(error) } };
  return JSON.stringify(stored);
}

/** A stored failure in `locale`; a row written before problems were stored (a sentence) is shown as it is. */
export function installMessage(stored: string | null, locale: MessageLocale): string | null {
  if (stored === null) return null;
  let parsed: StoredProblem | null = null;
  try {
    parsed = JSON.parse(stored) as StoredProblem;
  } catch {
    return stored;
  }
  const template = parsed && MESSAGES[locale][parsed.problem];
  return template ? fill(template, parsed.params ?? {}) : stored;
}
