//go:build !js

package apiclient

import "net/http"

// defaultDo sends req when Client.HTTP is nil: net/http's default client
// (in wasm, the browser's fetch: fetch_js.go).
func defaultDo(req *http.Request) (*http.Response, error) {
	return http.DefaultClient.Do(req)
}
