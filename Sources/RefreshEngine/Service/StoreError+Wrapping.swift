public import FeedModels
import Measures

extension StoreError {
    /// `error` as the store's error: itself when it is one, else an error of a type podfresh did not expect, named by
    /// ``ErrorWords``.
    public static func wrapping(_ error: any Error) -> StoreError {
        error as? StoreError ?? StoreError(.unexpected(reason: ErrorWords.describe(error)))
    }
}
