/*
 * Flags as SVG images (flag-icons, MIT): emoji flags show as two letters on Windows. Only the
 * flags of the 40 locales are imported; the build emits each as its own file, fetched when shown.
 */
import zaFlag from 'flag-icons/flags/4x3/za.svg';
import saFlag from 'flag-icons/flags/4x3/sa.svg';
import bgFlag from 'flag-icons/flags/4x3/bg.svg';
import adFlag from 'flag-icons/flags/4x3/ad.svg';
import czFlag from 'flag-icons/flags/4x3/cz.svg';
import dkFlag from 'flag-icons/flags/4x3/dk.svg';
import deFlag from 'flag-icons/flags/4x3/de.svg';
import grFlag from 'flag-icons/flags/4x3/gr.svg';
import usFlag from 'flag-icons/flags/4x3/us.svg';
import esFlag from 'flag-icons/flags/4x3/es.svg';
import irFlag from 'flag-icons/flags/4x3/ir.svg';
import fiFlag from 'flag-icons/flags/4x3/fi.svg';
import phFlag from 'flag-icons/flags/4x3/ph.svg';
import frFlag from 'flag-icons/flags/4x3/fr.svg';
import ilFlag from 'flag-icons/flags/4x3/il.svg';
import inFlag from 'flag-icons/flags/4x3/in.svg';
import hrFlag from 'flag-icons/flags/4x3/hr.svg';
import huFlag from 'flag-icons/flags/4x3/hu.svg';
import idFlag from 'flag-icons/flags/4x3/id.svg';
import itFlag from 'flag-icons/flags/4x3/it.svg';
import jpFlag from 'flag-icons/flags/4x3/jp.svg';
import krFlag from 'flag-icons/flags/4x3/kr.svg';
import myFlag from 'flag-icons/flags/4x3/my.svg';
import nlFlag from 'flag-icons/flags/4x3/nl.svg';
import noFlag from 'flag-icons/flags/4x3/no.svg';
import plFlag from 'flag-icons/flags/4x3/pl.svg';
import ptFlag from 'flag-icons/flags/4x3/pt.svg';
import roFlag from 'flag-icons/flags/4x3/ro.svg';
import ruFlag from 'flag-icons/flags/4x3/ru.svg';
import skFlag from 'flag-icons/flags/4x3/sk.svg';
import siFlag from 'flag-icons/flags/4x3/si.svg';
import seFlag from 'flag-icons/flags/4x3/se.svg';
import lkFlag from 'flag-icons/flags/4x3/lk.svg';
import thFlag from 'flag-icons/flags/4x3/th.svg';
import trFlag from 'flag-icons/flags/4x3/tr.svg';
import uaFlag from 'flag-icons/flags/4x3/ua.svg';
import vnFlag from 'flag-icons/flags/4x3/vn.svg';
import cnFlag from 'flag-icons/flags/4x3/cn.svg';
import hkFlag from 'flag-icons/flags/4x3/hk.svg';

const FLAGS = new Map<string, string>([
  ['za', zaFlag],
  ['sa', saFlag],
  ['bg', bgFlag],
  ['ad', adFlag],
  ['cz', czFlag],
  ['dk', dkFlag],
  ['de', deFlag],
  ['gr', grFlag],
  ['us', usFlag],
  ['es', esFlag],
  ['ir', irFlag],
  ['fi', fiFlag],
  ['ph', phFlag],
  ['fr', frFlag],
  ['il', ilFlag],
  ['in', inFlag],
  ['hr', hrFlag],
  ['hu', huFlag],
  ['id', idFlag],
  ['it', itFlag],
  ['jp', jpFlag],
  ['kr', krFlag],
  ['my', myFlag],
  ['nl', nlFlag],
  ['no', noFlag],
  ['pl', plFlag],
  ['pt', ptFlag],
  ['ro', roFlag],
  ['ru', ruFlag],
  ['sk', skFlag],
  ['si', siFlag],
  ['se', seFlag],
  ['lk', lkFlag],
  ['th', thFlag],
  ['tr', trFlag],
  ['ua', uaFlag],
  ['vn', vnFlag],
  ['cn', cnFlag],
  ['hk', hkFlag],
]);

/** The image of a country's flag (ISO 3166-1 alpha-2, lower case), or undefined for one not bundled. */
export function flagUrl(country: string): string | undefined {
  return FLAGS.get(country.toLowerCase());
}
