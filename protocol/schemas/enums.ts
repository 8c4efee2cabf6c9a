/** Value sets the wire and the config share; the schemas and src/config/defaults.ts both read them. */

export const PERMISSION_MODES = ['manual', 'yolo', 'auto'] as const;
export type PermissionModeName = (typeof PERMISSION_MODES)[number];

export const PROVIDER_TYPES = ['svc', 'messages_api', 'chat_compat', 'chat_compat_responses', 'genai', 'cloud_ai'] as const;
export const EFFORTS = ['low', 'medium', 'high', 'xhigh', 'max'] as const;
export const TOKEN_COUNTING_STRATEGIES = ['measured+estimated', 'measured', 'estimated'] as const;
export const PRINT_BACKGROUND_MODES = ['exit', 'drain', 'steer'] as const;

/** The managed provider's regions (Core "GET /api/v1/oauth/region"). */
export const REGIONS = ['mainland-cn', 'global'] as const;
export type Region = (typeof REGIONS)[number];

/** What POST /title/generate may read (`source`). */
export const TITLE_SOURCES = ['user_prompts', 'first_turn', 'digest'] as const;
export type TitleSource = (typeof TITLE_SOURCES)[number];
