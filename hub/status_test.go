package hub

import (
	"context"
	"testing"

	"capabilities.sh/capabilities/hub/clients"
	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/internal/hubtest"
)

func TestStatusReportsAnOpenImportOffer(t *testing.T) {
	home := t.TempDir()
	p := config.Paths{Home: home}
	clients.SaveImportOffer(p, &clients.ImportOffer{Servers: []clients.OfferedServer{{Name: "a"}, {Name: "b"}}})
	h, err := New(context.Background(), Options{Home: home, ConfigPoll: -1, Keychain: hubtest.FailingKeychain{}})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	st, err := h.Status(context.Background())
	if err != nil || st.ImportOffer != 2 {
		t.Fatalf("Status: ImportOffer %d, %v", st.ImportOffer, err)
	}
	clients.CloseImportOffer(p)
	if st, _ := h.Status(context.Background()); st.ImportOffer != 0 {
		t.Fatalf("after closing the offer: %d", st.ImportOffer)
	}
}
