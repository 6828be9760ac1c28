//go:build tools

// Docker Compose v2's command (published as github.com/docker/compose/v5), built by
// infra/compose.ts into .local/bin/docker-compose from the versions this go.mod pins:
// `go install …@version` refuses it, its go.mod having an exclude directive (repeated here).
package tools

import _ "github.com/docker/compose/v5/cmd"
