// Node's module hooks for driver.mjs: each `k6/...` module a k6 script imports resolves to its
// stand-in in k6.mjs's folder, and `import.meta.resolve(x)` (sync in k6, not in every Node) is read
// as the URL it names beside the file.
const STANDS_IN = new Set(['k6', 'k6/http', 'k6/metrics', 'k6/execution', 'k6/net/grpc']);

export async function resolve(specifier, context, next) {
  if (STANDS_IN.has(specifier)) {
    const file = `${specifier.replaceAll('/', '-')}.mjs`;
    return { url: new URL(`stand-in/${file}`, import.meta.url).href, shortCircuit: true };
  }
  return next(specifier, context);
}

export async function load(url, context, next) {
  const loaded = await next(url, context);
  if (!url.includes('/k6/') || loaded.format !== 'module') return loaded;
  const text = typeof loaded.source === 'string' ? loaded.source : new TextDecoder().decode(loaded.source);
  const source = text.replace(/import\.meta\.resolve\(([^)]*)\)/g, 'new URL($1, import.meta.url).href');
  return { ...loaded, source, shortCircuit: true };
}
