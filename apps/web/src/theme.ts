import {
  createTheme,
  defaultVariantColorsResolver,
  mergeThemeOverrides,
  parseThemeColor,
  type MantineThemeOverride,
  type VariantColorsResolver,
} from '@mantine/core';

/**
 * Light, subtle and outline variants write their text in shade 6 of their colour, below WCAG AA's 4.5:1 on
 * their pale backgrounds for most colours (teal, blue, grape, yellow…): shade 9, darkened, is above it for all.
 */
const variantColorResolver: VariantColorsResolver = (input) => {
  const colors = defaultVariantColorsResolver(input);
  const parsed = parseThemeColor({ color: input.color || input.theme.primaryColor, theme: input.theme });
  if (!parsed.isThemeColor || parsed.shade !== undefined || parsed.color === 'gray' || parsed.color === 'dark') return colors;
  // Filled: white text on shade 6 is below 4.5:1 for every colour but the darkest (orange 3.0, red 3.3, teal 2.6), and
  // on shade 9 still for some (orange 4.0). The primary colour has its own shade (7) above; the rest take 9, darkened.
  if (input.variant === 'filled' && parsed.color !== input.theme.primaryColor) {
    return {
      ...colors,
      background: `color-mix(in srgb, var(--mantine-color-${parsed.color}-9) 75%, black)`,
      hover: `color-mix(in srgb, var(--mantine-color-${parsed.color}-9) 60%, black)`,
      color: 'var(--mantine-color-white)',
    };
  }
  if (input.variant !== 'light' && input.variant !== 'subtle' && input.variant !== 'outline') return colors;
  // Shade 9 darkened by a quarter: teal 9 alone is 4.3:1 on a striped row's light teal.
  return { ...colors, color: `color-mix(in srgb, var(--mantine-color-${parsed.color}-9) 75%, black)` };
};

export const theme = createTheme({
  primaryColor: 'violet',
  // Shade 6 on white is below WCAG AA's 4.5:1 for text and for white text on filled buttons; 7 is above.
  primaryShade: { light: 7, dark: 8 },
  variantColorResolver,
  defaultRadius: 'md',
  fontFamily:
    'Inter, system-ui, -apple-system, "Segoe UI", Roboto, "PingFang SC", "Hiragino Sans GB", "Microsoft YaHei", "Noto Sans CJK SC", sans-serif',
  headings: { fontWeight: '700' },
  // Components' defaults are plain objects, not `Table.extend(…)` and the like: naming a component here would put it
  // (and what it is built from) on the first page, which shows no table, dialog or drawer until asked.
  components: {
    // A table wider than the screen scrolls sideways: its scrolling box takes keyboard focus, so it can be scrolled without a mouse.
    TableScrollContainer: { defaultProps: { scrollAreaProps: { viewportProps: { tabIndex: 0 } } } },
  },
});

/**
 * The theme with the words Mantine draws itself in the console's language: the close button of every dialog and
 * drawer is an icon, whose name screen readers read from its label.
 */
export function localizedTheme(closeLabel: string): MantineThemeOverride {
  const closeButtonProps = { 'aria-label': closeLabel };
  return mergeThemeOverrides(
    theme,
    createTheme({
      components: {
        Modal: { defaultProps: { closeButtonProps } },
        Drawer: { defaultProps: { closeButtonProps } },
      },
    }),
  );
}
