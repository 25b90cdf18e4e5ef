import FeedModels
import Foundation
import GPodderSync

extension SubscriptionSync {
    /// The episode-action steps of a sync, after the subscriptions':
    ///
    /// 1. Pull the server's actions since the stored cursor (every action at the first sync) and apply them with the
    ///    new cursor in one transaction (``EpisodeActionRepository/applyPulledEpisodeActions(_:cursor:ownDevice:at:)``):
    ///    a cut before it leaves the cursor where it was, and the next sync pulls the same actions again, which
    ///    changes nothing twice (the latest action per episode wins).
    /// 2. Delete the files of episodes now played to the end, in feeds set to (`set --delete-played on`).
    /// 3. Push the outbox a page (``SyncServerClient/actionsPerPush``) at a time; each page leaves the outbox in the
    ///    transaction that records the server took it, so a cut push is sent again and a taken one never.
    ///
    /// On a Nextcloud server, which keeps one action per episode, a download of an episode another device played,
    /// deleted or marked new is not sent: it would overwrite that device's action for every other device. It leaves
    /// the outbox, counted as withheld.
    func syncEpisodeActions(
        _ repository: any EpisodeActionRepository, since cursor: Int64?, into outcome: inout SyncOutcome
    ) async throws {
        let changes = try await client.pullEpisodeActions(since: cursor ?? 0)
        var summary = try await repository.applyPulledEpisodeActions(
            changes.actions, cursor: changes.timestamp, ownDevice: client.setup.device, at: now())
        summary.received += changes.skipped
        summary.unchanged += changes.skipped
        outcome.actions = summary
        publish(.actionsPulled(summary))
        if summary.played > 0, let downloads = store as? any DownloadRepository {
            for subscription in try await subscriptions.subscriptions() where subscription.deletePlayed {
                await PlayedFiles.delete(
                    of: subscription, downloads: downloads, actions: repository, publish: publishDownload)
            }
        }
        var pushed = 0
        var withheld = 0
        var states: [EpisodeRef: EpisodePlayState]?
        while true {
            let page = try await repository.pendingEpisodeActions(limit: SyncServerClient.actionsPerPush)
            guard !page.isEmpty else { break }
            var send = page
            if client.setup.api == .nextcloud {
                if states == nil { states = try await repository.playStates(subscriptionID: nil) }
                send = page.filter { pending in
                    guard pending.action.kind == .download, let ref = pending.ref else { return true }
                    return states?[ref] == nil
                }
            }
            if !send.isEmpty { try await client.pushEpisodeActions(send.map(\.action)) }
            try await repository.recordEpisodeActionsPushed(ids: page.map(\.id))
            pushed += send.count
            withheld += page.count - send.count
            outcome.actionsPushed = pushed
            if page.count < SyncServerClient.actionsPerPush { break }
        }
        if pushed + withheld > 0 {
            publish(.actionsPushed(SyncActionsPushed(pushed: pushed, withheld: withheld)))
        }
    }
}
