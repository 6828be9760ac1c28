// The operations of the OpenAPI document itself, which every service's document lists
// (platform/http/openapi.ts declareDocsRoutes): Swagger UI's page and its files, and the document
// as JSON and YAML. Public, and they hold no tenant data.
export const DOCS_OPERATIONS = [
  'GET /docs/',
  'GET /docs/json',
  'GET /docs/yaml',
  'GET /docs/static/index.html',
  'GET /docs/static/swagger-initializer.js',
  'GET /docs/static/{*}',
  'HEAD /docs/static/{*}',
];

/** A file of Swagger UI's, for the `*` of /docs/static/{*}. */
export const DOCS_STATIC_FILE = 'swagger-ui.css';
