/** camroll's version, shown by `--version` and sent as the User-Agent. */
export const VERSION = '0.1.0';
