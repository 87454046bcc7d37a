/** Launcher geometry. The panel width is the spec's 360 px (WIDGET_WIDTH_PX; a spec checks they agree). */
export const LAUNCHER = { panelWidth: 360, panelHeight: 560, size: 56 } as const;
