/** The --help line of `--html FILE` (scan, sync, events, stats): here, so no command loads the writer to say it. */
export const HTML_OPTION_HELP =
  'write a self-contained HTML report to FILE (mode 0600: it holds the paths and coordinates of your files)';
