package upstream

import "testing"

func TestRequestLine(t *testing.T) {
	for _, tc := range []struct {
		method, url, preview, want string
	}{
		{"delete", "https://api.example.com/items/{id}", `{"id":"42"}`, "DELETE https://api.example.com/items/42"},
		{"GET", "https://api.example.com/orders/{orderId}", `{"orderId":7}`, "GET https://api.example.com/orders/7"},
		{"POST", "https://api.example.com/items/{id}", `{"id":"a b/c"}`, "POST https://api.example.com/items/a%20b%2Fc"},
		{"GET", "https://api.example.com/items/{id}", `{"id":{"nested":1}}`, "GET https://api.example.com/items/{id}"},
		{"GET", "https://api.example.com/items/{id}", `{"id": <result of call 1>.id}`, "GET https://api.example.com/items/{id}"},
		{"GET", "https://api.example.com/items", "", "GET https://api.example.com/items"},
	} {
		if got := RequestLine(tc.method, tc.url, tc.preview); got != tc.want {
			t.Errorf("RequestLine(%s, %s, %s) = %q, want %q", tc.method, tc.url, tc.preview, got, tc.want)
		}
	}
}
