/** AsyncAPI document of `/api/v1/ws`. STUB: completed by the WebSocket work. */
export function buildAsyncApi(version: string): Record<string, unknown> {
  return {
    asyncapi: '3.0.0',
    info: { title: 'svc-code event stream', version },
    channels: {},
  };
}
