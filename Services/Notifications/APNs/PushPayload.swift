import Envelope
import Foundation
import NotificationsContract

/// A push's content as the APNs payload one recipient's device gets: the badge is the recipient's
/// unread count in the app, and `melon` beside `aps` carries the inbox item's id, the event type,
/// the category, the per-category unread counts (`tabs`, for tab badges; left out with
/// `tabs: false`) and the sender's deep-link data. A silent push has no inbox item and no badge.
public enum PushPayload {
    public static func build(_ content: Notifications.Content, notification: UUID?, unread: [String: Int], tabs: Bool = true) -> APNsPayload {
        var aps = APNsPayload.APS()
        if let alert = content.alert, !alert.isEmpty {
            aps.alert = APNsPayload.Alert(
                title: alert.title, subtitle: alert.subtitle, body: alert.body, titleLocKey: alert.titleLocKey, titleLocArgs: alert.titleLocArgs,
                subtitleLocKey: alert.subtitleLocKey, subtitleLocArgs: alert.subtitleLocArgs, locKey: alert.locKey, locArgs: alert.locArgs)
            aps.badge = unread.values.reduce(0, +)
            aps.threadID = content.threadID ?? content.category
            aps.category = content.actionCategory
            aps.mutableContent = content.mutableContent ?? false
            switch content.interruption {
            case .critical?: aps.sound = .critical(name: content.sound ?? "default", volume: 1)
            default: aps.sound = content.sound.map(APNsPayload.Sound.named)
            }
            aps.interruptionLevel = content.interruption.map { APNsPayload.InterruptionLevel(rawValue: $0.rawValue)! }
            aps.relevanceScore = content.relevance.map { Double($0) / 100 }
        }
        aps.contentAvailable = content.contentAvailable ?? false
        var melon: [String: JSONValue] = ["type": .string(content.eventType), "category": .string(content.category)]
        if let notification { melon["id"] = .string(notification.uuidString.lowercased()) }
        if tabs { melon["tabs"] = .object(unread.mapValues { .number(Double($0)) }) }
        if let data = content.data { melon["data"] = .object(data.mapValues(JSONValue.string)) }
        return APNsPayload(aps: aps, custom: ["melon": .object(melon)])
    }
}
