// The messages of a tool-list subscription: the session era's GET stream
// and the stateless era's subscriptions/listen stream.

package mcp

// SubscriptionMeta writes the _meta object that names a subscriptions/listen
// stream: {"io.modelcontextprotocol/subscriptionId": id}, id being the
// listen request's id as JSON.
func SubscriptionMeta(id []byte) []byte { return []byte(subscriptionMeta(id)) }

// subscriptionMeta is SubscriptionMeta as a string.
func subscriptionMeta(id []byte) string { return `{"` + MetaSubscriptionID + `":` + string(id) + "}" }

// ListChangedNotification writes notifications/tools/list_changed: with no
// params on a session-era stream (subscriptionID nil), with the
// subscription's _meta on a stateless-era one.
func ListChangedNotification(subscriptionID []byte) []byte {
	if subscriptionID == nil {
		return NotificationBody(NotificationToolsListChanged, nil)
	}
	return NotificationBody(NotificationToolsListChanged, []byte(`{"`+KeyMeta+`":`+subscriptionMeta(subscriptionID)+"}"))
}

// AcknowledgedNotification writes the first message of a stateless-era
// subscriptions/listen stream (request id subscriptionID) that listens for
// tool-list changes: notifications/subscriptions/acknowledged.
func AcknowledgedNotification(subscriptionID []byte) []byte {
	return NotificationBody(NotificationSubscriptionsAcknowledged,
		[]byte(`{"`+KeyMeta+`":`+subscriptionMeta(subscriptionID)+`,"notifications":{"toolsListChanged":true}}`))
}
