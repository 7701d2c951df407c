interface CallOptions {
	/** Connection name; default connection when omitted. */
	connection?: string;
}

declare const memory: {
	/** Create multiple new entities in the knowledge graph */
	createEntities(input: {
		entities: {
			/** The name of the entity */
			name: string;
			/** The type of the entity */
			entityType: string;
			/** An array of observation contents associated with the entity */
			observations: string[];
		}[];
	}, options?: CallOptions): Promise<memory.CreateEntitiesResult>;
};

declare namespace memory {
	interface CreateEntitiesResult {
		entities: {
			/** The name of the entity */
			name: string;
			/** The type of the entity */
			entityType: string;
			/** An array of observation contents associated with the entity */
			observations: string[];
		}[];
	}
}

declare const everything: {
	/**
	 * Returns the sum of two numbers
	 * @returns The tool's content: parsed JSON, else its text, else the content array.
	 */
	getSum(input: {
		/** First number */
		a: number;
		/** Second number */
		b: number;
	}, options?: CallOptions): Promise<unknown>;
};

